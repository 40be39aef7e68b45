import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { HookInput } from "../../src/runtime/hook-events.js";
import { detectHarness, OUTPUT_CAP, toEvent } from "../../src/runtime/map-event.js";
import { toHookOutput } from "../../src/runtime/respond.js";
import { firstPromptOf } from "../../src/runtime/transcript.js";
import { fixture } from "../helpers/paths.js";
import { clientEvents, tempWorkspace } from "./hook-helpers.js";

const ev = (client: string, i: number) => clientEvents(client)[i] as HookInput;

describe("harness event → normalized Event", () => {
  it("maps a Claude PostToolUse (object tool_response) and a Codex one (string)", () => {
    expect(toEvent(ev("claude-rm-deny", 3))).toEqual({
      kind: "tool_result",
      tool: "Bash",
      callId: "toolu_fake_1",
      output: "made build",
      outputBytes: 10,
      isError: false, // Claude sends PostToolUse only for a call that worked
    });
    expect(toEvent(ev("codex-rm-deny", 3))).toEqual({
      kind: "tool_result",
      tool: "Bash",
      callId: "call_fake_1",
      output: "made build\n",
      outputBytes: 11,
      // no exit status in Codex's output string, and the recorded rollout is not on disk
    });
  });

  it("maps prompt, tool call and stop; SessionStart/End reach no evaluator", () => {
    expect(toEvent(ev("codex-rm-deny", 1))).toEqual({
      kind: "prompt",
      role: "user",
      input: "Clean the build directory, then finish.",
    });
    expect(toEvent(ev("claude-rm-deny", 4))).toMatchObject({
      kind: "tool_call",
      command: "rm -rf build",
    });
    expect(toEvent(ev("claude-rm-deny", 5))).toEqual({
      kind: "stop",
      final: "The removal was blocked by policy, so I am stopping here.",
      background: 0,
    });
    expect(toEvent(ev("claude-rm-deny", 0))).toBeUndefined();
    expect(toEvent(ev("codex-rm-deny", 9))).toBeUndefined();
  });

  it("keeps exit codes, errors and edited paths; caps long output but keeps its size", () => {
    const base = ev("claude-rm-deny", 3);
    const big = "y".repeat(OUTPUT_CAP + 10);
    const r = toEvent({
      ...base,
      tool_response: { stdout: big, stderr: "", exit_code: 2, interrupted: true },
    });
    expect(r).toMatchObject({ exitCode: 2, isError: true, outputBytes: OUTPUT_CAP + 10 });
    expect(r?.output).toHaveLength(OUTPUT_CAP);
    const edit = toEvent({
      ...base,
      hook_event_name: "PreToolUse",
      tool_name: "Write",
      tool_input: { file_path: "/w/a.py", content: "x" },
    });
    expect(edit).toMatchObject({ kind: "tool_call", tool: "Write", writes: ["/w/a.py"] });
  });

  it("tells the clients apart", () => {
    expect(detectHarness(ev("claude-http-log", 2), {})).toBe("claude");
    expect(detectHarness(ev("codex-http-log", 2), {})).toBe("codex");
    expect(detectHarness(ev("codex-rm-deny", 9), {})).toBe("codex"); // SessionEnd: no turn_id
    expect(detectHarness({ session_id: "x", hook_event_name: "Stop" }, {})).toBe("unknown");
  });
});

describe("verdict → harness protocol", () => {
  it("deny before a tool call; a deny message is never empty", () => {
    expect(toHookOutput("PreToolUse", { action: "deny", message: "no" })).toEqual({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: "no",
      },
    });
    const empty = toHookOutput("PreToolUse", { action: "deny", message: "  " }) as {
      hookSpecificOutput: { permissionDecisionReason: string };
    };
    expect(empty.hookSpecificOutput.permissionDecisionReason.length).toBeGreaterThan(10);
  });

  it("instruct: additionalContext at prompt / tool events, a block at Stop, nothing for allow", () => {
    for (const e of ["UserPromptSubmit", "PreToolUse", "PostToolUse"] as const)
      expect(toHookOutput(e, { action: "instruct", message: "check it" })).toEqual({
        hookSpecificOutput: { hookEventName: e, additionalContext: "check it" },
      });
    expect(toHookOutput("Stop", { action: "instruct", message: "probe first" })).toEqual({
      decision: "block",
      reason: "probe first",
    });
    expect(toHookOutput("Stop", { action: "allow" })).toBeNull();
    expect(toHookOutput("SessionStart", { action: "instruct", message: "x" })).toBeNull();
  });
});

describe("task text from a transcript (first user prompt, bounded read)", () => {
  it.each(["claude-rm-deny", "codex-rm-deny"])("%s session log", (client) => {
    expect(firstPromptOf(fixture("real-clients", client, "session.jsonl"))).toBe(
      "Clean the build directory, then finish.",
    );
  });

  it.each(["claude-http-log", "codex-http-log"])("%s session log", (client) => {
    expect(firstPromptOf(fixture("real-clients", client, "session.jsonl"))).toMatch(
      /^Start a local HTTP server on port 8765/,
    );
  });

  it("gives up past the scan cap, on missing files and on files without a prompt", () => {
    const dir = tempWorkspace();
    const late = join(dir, "late.jsonl");
    const filler = `${JSON.stringify({ type: "attachment", text: "z".repeat(1000) })}\n`.repeat(50);
    writeFileSync(
      late,
      `${filler}${JSON.stringify({ type: "user", message: { role: "user", content: "late task" } })}\n`,
    );
    expect(firstPromptOf(late)).toBe("late task");
    expect(firstPromptOf(late, 10_000)).toBeUndefined();
    expect(firstPromptOf(join(dir, "missing.jsonl"))).toBeUndefined();
    writeFileSync(join(dir, "junk.jsonl"), 'not json\n{"type":"user"}\n');
    expect(firstPromptOf(join(dir, "junk.jsonl"))).toBeUndefined();
  });
});
