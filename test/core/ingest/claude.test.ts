import { describe, expect, it } from "vitest";
import { fixture } from "../../helpers/paths.js";
import { collect } from "./collect.js";

const session = (name: string) => fixture("real-clients", name, "session.jsonl");

describe("Claude Code transcript importer (real-clients)", () => {
  it("reads the rm-deny session: prompt, Bash commands, the deny and the Stop block as hook events", async () => {
    const got = await collect([session("claude-rm-deny")]);
    expect(got.errors).toEqual([]); // 49 lines, bookkeeping rows skipped silently
    expect(got.units.map((u) => u.format)).toEqual(["claude-transcript"]);
    const a = got.attempts[0]!;
    expect(a.taskText).toBe("Clean the build directory, then finish.");
    expect(a.agent).toBe("claude-code");
    expect(a.model).toBe("claude-opus-5-5");
    expect(a.outcome).toBe("unknown");
    expect(a.costUsd).toBe(0.004);
    expect(a.tokens).toEqual({ input: 500, output: 100, cached: 0, cacheWrite: 0 });
    expect(a.events.map((e) => e.kind)).toEqual([
      "prompt",
      "message",
      "tool_call",
      "tool_result",
      "message",
      "tool_call",
      "tool_result",
      "hook",
      "message",
      "stop",
      "hook",
      "message",
      "tool_call",
      "tool_result",
      "message",
      "stop",
    ]);
    const calls = a.events.filter((e) => e.kind === "tool_call");
    expect(calls.map((c) => c.command)).toEqual([
      "mkdir -p build && touch build/out.o && echo made build",
      "rm -rf build",
      "ls -la",
    ]);
    expect(calls.map((c) => c.callId)).toEqual(["toolu_fake_1", "toolu_fake_2", "toolu_fake_3"]);
    const denied = a.events[6]!;
    expect(denied).toMatchObject({
      kind: "tool_result",
      callId: "toolu_fake_2",
      isError: true,
      tool: "Bash",
    });
    const hooks = a.events.filter((e) => e.kind === "hook");
    expect(hooks[0]).toMatchObject({
      callId: "toolu_fake_2",
      tool: "Bash",
      hook: {
        event: "PreToolUse",
        decision: "deny",
        text: 'deny-hook: destructive command "rm -rf" is not allowed in this workspace. Do not retry it.',
      },
    });
    // the Stop block appears once although the transcript records it as a meta row and an attachment
    expect(hooks[1]!.hook).toEqual({
      event: "Stop",
      decision: "block",
      text: "deny-hook: before stopping, run `ls -la` and report what is in the working directory.",
    });
  });

  it("reads the http-log session: the detached setsid launch, the probe and the kill", async () => {
    const [a] = (await collect([session("claude-http-log")])).attempts;
    const cmds = a!.events.filter((e) => e.kind === "tool_call").map((e) => e.command);
    expect(cmds[0]).toMatch(/^setsid nohup python3 -m http\.server 8765/);
    expect(cmds[1]).toBe("curl -s --max-time 5 http://127.0.0.1:8765/ | head -n 5");
    expect(cmds[2]).toBe("kill $(cat server.pid) && echo server-stopped");
    expect(a!.events.filter((e) => e.kind === "hook")).toHaveLength(0);
    expect(a!.events.at(-1)!.kind).toBe("stop");
  });

  it("detects a transcript by content whatever its name, with a stable id", async () => {
    const one = await collect([session("claude-rm-deny")]);
    const two = await collect([session("claude-rm-deny")]);
    expect(one.attempts[0]!.id).toBe(two.attempts[0]!.id);
    expect(one.attempts[0]!.id).toMatch(/^9a976fe8-5228-4521-b5b0-4f9081dc151e-[0-9a-f]{8}$/);
  });
});

describe("Claude Code sub-agent transcripts", () => {
  it("imports an all-sidechain file as its own attempt linked to the parent session", async () => {
    const { mkdtempSync, readFileSync, rmSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const rows = readFileSync(session("claude-http-log"), "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => l.replace('"isSidechain":false', '"isSidechain":true'));
    const tmp = mkdtempSync(join(tmpdir(), "fire-claude-"));
    try {
      writeFileSync(join(tmp, "agent-a1b2.jsonl"), `${rows.join("\n")}\n`);
      const main = (await collect([session("claude-http-log")])).attempts[0]!;
      const [sub] = (await collect([join(tmp, "agent-a1b2.jsonl")])).attempts;
      expect(sub!.links).toEqual([{ kind: "parent", ref: "f65e436c-cf9c-4791-bebf-9c1da2dde3f1" }]);
      expect(sub!.events.filter((e) => e.kind === "tool_call")).toHaveLength(3);
      expect(sub!.id).not.toBe(main.id);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe("Claude Code hook context attachments", () => {
  it("turns a hook_additional_context attachment into an instruct hook event", async () => {
    const { mkdtempSync, readFileSync, rmSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const rows = readFileSync(session("claude-http-log"), "utf8").trimEnd().split("\n");
    const at = rows.findIndex((l) => l.includes('"type":"user"'));
    // shaped like the recorded hook_blocking_error attachment of claude-rm-deny
    const attachment = JSON.stringify({
      parentUuid: null,
      isSidechain: false,
      attachment: {
        type: "hook_additional_context",
        content: ["Launch servers with setsid and probe them from a later call."],
        hookName: "UserPromptSubmit",
        hookEvent: "UserPromptSubmit",
      },
      type: "attachment",
      timestamp: "2026-11-30T00:36:40.700Z",
      sessionId: "f65e436c-cf9c-4791-bebf-9c1da2dde3f1",
    });
    rows.splice(at + 1, 0, attachment);
    const tmp = mkdtempSync(join(tmpdir(), "fire-claude-ctx-"));
    try {
      writeFileSync(join(tmp, "s.jsonl"), `${rows.join("\n")}\n`);
      const [a] = (await collect([join(tmp, "s.jsonl")])).attempts;
      expect(a!.events[1]).toMatchObject({
        kind: "hook",
        hook: {
          event: "UserPromptSubmit",
          decision: "instruct",
          text: "Launch servers with setsid and probe them from a later call.",
        },
      });
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe("Claude Code task text", () => {
  it("skips slash-command wrapper rows when choosing the task text, but keeps them as prompts", async () => {
    const { mkdtempSync, readFileSync, rmSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const rows = readFileSync(session("claude-rm-deny"), "utf8").trimEnd().split("\n");
    const at = rows.findIndex((l) => l.includes('"type":"user"'));
    const clear = JSON.stringify({
      type: "user",
      message: {
        role: "user",
        content: "<command-name>/clear</command-name>\n<command-message>clear</command-message>",
      },
      timestamp: "2026-11-30T00:36:40.600Z",
      sessionId: "9a976fe8-5228-4521-b5b0-4f9081dc151e",
      isSidechain: false,
    });
    rows.splice(at, 0, clear);
    const tmp = mkdtempSync(join(tmpdir(), "fire-claude-cmd-"));
    try {
      writeFileSync(join(tmp, "s.jsonl"), `${rows.join("\n")}\n`);
      const [a] = (await collect([join(tmp, "s.jsonl")])).attempts;
      expect(a!.taskText).toBe("Clean the build directory, then finish.");
      expect(a!.events.filter((e) => e.kind === "prompt")).toHaveLength(2);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
