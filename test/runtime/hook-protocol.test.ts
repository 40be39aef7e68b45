import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fixture, REPO_ROOT } from "../helpers/paths.js";
import {
  clientEvents,
  clientOutputs,
  hook,
  logEntries,
  PORTFOLIO,
  parsedStdout,
  stateOf,
  tempWorkspace,
} from "./hook-helpers.js";

/**
 * The built `fire hook` fed the exact stdin of real Claude Code 2.1.332 and Codex 0.171.0
 * sessions. The test portfolio's messages equal the recorded deny-hook's, so every answer
 * must equal what that hook answered (and the real clients accepted).
 */
describe.each([
  ["claude-rm-deny", "claude"],
  ["codex-rm-deny", "codex"],
])("fire hook on %s", (client, harness) => {
  it("answers every event exactly as the recorded hook did", () => {
    const ws = tempWorkspace();
    const events = clientEvents(client);
    const expected = clientOutputs(client);
    const outputs = events.map((e) => {
      const r = hook(ws, e);
      expect(r.status).toBe(0);
      expect(r.stderr).toBe("");
      return parsedStdout(r);
    });
    expect(outputs).toEqual(expected);
    expect(outputs.filter((o) => o !== null)).toHaveLength(2);

    const session = events[0]?.session_id as string;
    const state = stateOf(ws, session) as {
      step: number;
      taskText: string;
      policies: Record<
        string,
        { eligible: boolean; counters: Record<string, number>; flags: Record<string, boolean> }
      >;
    };
    // 10 events, of which SessionStart/SessionEnd do not reach the evaluator.
    expect(state.step).toBe(8);
    expect(state.taskText).toBe("Clean the build directory, then finish.");
    const ps = state.policies["test.rm-guard@1"];
    expect(ps?.eligible).toBe(true);
    // 3 tool calls; the denied rm -rf did not happen, so its tracking update is undone.
    expect(ps?.counters.calls).toBe(2);
    expect(ps?.flags.listed).toBe(true);

    const log = logEntries(ws);
    expect(log).toHaveLength(10);
    expect(new Set(log.map((l) => l.harness))).toEqual(new Set([harness]));
    expect(log.map((l) => l.event)).toEqual(events.map((e) => e.hook_event_name));
    expect(log.map((l) => l.eventIndex)).toEqual([null, 0, 1, 2, 3, 4, 5, 6, 7, null]);
    expect(log.map((l) => l.verdict.action)).toEqual([
      "allow",
      "allow",
      "allow",
      "allow",
      "deny",
      "instruct",
      "allow",
      "allow",
      "allow",
      "allow",
    ]);
    const deny = log[4];
    expect(deny?.command).toBe("rm -rf build");
    expect(deny?.firings.map((f) => `${f.ruleId}@${f.eventIndex}`)).toEqual(["no-rm-rf@3"]);
    expect(log[5]?.firings.map((f) => f.ruleId)).toEqual(["list-before-stop"]);
    expect(log[2]?.tracked).toEqual(["test.rm-guard@1/count-calls"]);
    expect(log.every((l) => l.error === undefined)).toBe(true);
  });
});

describe.each([
  ["claude-http-log", "claude"],
  ["codex-http-log", "codex"],
])("fire hook on %s (task not eligible)", (client) => {
  it("says nothing but still tracks and logs every event", () => {
    const ws = tempWorkspace();
    const events = clientEvents(client);
    for (const e of events) {
      const r = hook(ws, e);
      expect([r.status, r.stdout]).toEqual([0, ""]);
    }
    const log = logEntries(ws);
    expect(log).toHaveLength(events.length);
    expect(log.flatMap((l) => l.firings)).toEqual([]);
    const state = stateOf(ws, events[0]?.session_id as string) as {
      policies: Record<string, { eligible: boolean; counters: Record<string, number> }>;
    };
    expect(state.policies["test.rm-guard@1"]?.eligible).toBe(false);
    expect(state.policies["test.rm-guard@1"]?.counters.calls).toBe(3);
  });
});

describe("a session first seen mid-way", () => {
  it.each([["claude-rm-deny"], ["codex-rm-deny"]])(
    "reads the task text from the %s transcript and still denies",
    (client) => {
      const ws = tempWorkspace();
      const transcript = join(ws, "transcript.jsonl");
      copyFileSync(fixture("real-clients", client, "session.jsonl"), transcript);
      const rm = clientEvents(client)[4] as Record<string, unknown>;
      expect(rm.hook_event_name).toBe("PreToolUse");
      const r = hook(ws, { ...rm, transcript_path: transcript });
      expect(parsedStdout(r)).toEqual(clientOutputs(client)[4]);
      const state = stateOf(ws, rm.session_id as string);
      expect(state.taskText).toBe("Clean the build directory, then finish.");
      expect(state.step).toBe(1);
    },
  );

  it("a later prompt of a resumed session still takes the task from the transcript", () => {
    const ws = tempWorkspace();
    const transcript = join(ws, "transcript.jsonl");
    copyFileSync(fixture("real-clients", "claude-rm-deny", "session.jsonl"), transcript);
    const first = clientEvents("claude-rm-deny")[1] as Record<string, unknown>;
    const r = hook(ws, { ...first, prompt: "Also print the date.", transcript_path: transcript });
    expect([r.status, r.stdout]).toEqual([0, ""]);
    const state = stateOf(ws, first.session_id as string);
    expect(state.taskText).toBe("Clean the build directory, then finish.");
  });

  it("without a readable transcript the task is unknown and nothing fires", () => {
    const ws = tempWorkspace();
    const rm = clientEvents("claude-rm-deny")[4] as Record<string, unknown>;
    const r = hook(ws, { ...rm, transcript_path: join(ws, "missing.jsonl") });
    expect([r.status, r.stdout]).toEqual([0, ""]);
    expect(stateOf(ws, rm.session_id as string).taskText).toBeUndefined();
    expect(logEntries(ws)[0]?.verdict).toEqual({ action: "allow" });
  });
});

describe("the portfolio cache", () => {
  it("is reused while the sources are unchanged and rebuilt when a candidate changes", () => {
    const ws = tempWorkspace();
    const dir = join(ws, "portfolio");
    mkdirSync(dir);
    const file = join(dir, "rm-guard.json");
    const candidate = JSON.parse(readFileSync(join(PORTFOLIO, "rm-guard.json"), "utf8"));
    writeFileSync(file, JSON.stringify(candidate));
    const events = clientEvents("claude-rm-deny");
    const run = (e: unknown) => hook(ws, e, ["--portfolio", dir]);
    run(events[1]);
    const cacheDir = join(ws, ".fire/state/portfolio-cache");
    const cached = readdirSync(cacheDir).filter((f) => f.endsWith(".json"));
    expect(cached).toHaveLength(1);
    // only what the hook evaluates, no prose to parse; the behaviour condition is kept, since
    // the hook decides from it whether an instruction was followed (escalation ladders)
    const entry = JSON.parse(readFileSync(join(cacheDir, cached[0] as string), "utf8")).policies[0]
      .candidate;
    expect(entry.behavior).toEqual(candidate.behavior);
    expect(Object.keys(entry).sort()).toEqual(
      Object.keys(candidate)
        .filter((k) =>
          [
            "id",
            "version",
            "family",
            "title",
            "status",
            "eligibility",
            "track",
            "rules",
            "behavior",
          ].includes(k),
        )
        .sort(),
    );
    expect(entry.rules).toEqual(candidate.rules);
    candidate.rules[0].message = "changed: never rm -rf here.";
    writeFileSync(file, JSON.stringify(candidate, null, 1));
    const r = run(events[4]);
    expect(parsedStdout(r)).toMatchObject({
      hookSpecificOutput: { permissionDecisionReason: "changed: never rm -rf here." },
    });
    expect(readdirSync(cacheDir).filter((f) => f.endsWith(".json"))).toHaveLength(2);
  });
});

describe("the reference portfolio through the hook (service persistence)", () => {
  const REFERENCE = join(REPO_ROOT, "candidates/reference");
  const TASK = "Start a local HTTP server on port 8765 and keep it running after you finish.";

  /** The recorded Codex http-log session with an eligible task and, optionally, other commands. */
  function session(ws: string, commands: Record<number, string>) {
    return clientEvents("codex-http-log").map((e, i) => {
      const out: Record<string, unknown> = { ...e };
      if (e.hook_event_name === "UserPromptSubmit") out.prompt = TASK;
      const cmd = commands[i];
      if (cmd) out.tool_input = { command: cmd };
      return hook(ws, out, ["--portfolio", REFERENCE]);
    });
  }

  it("blocks the Stop after a plain background launch, with the policy's message", () => {
    const ws = tempWorkspace();
    // events 2/3 launch, 4/5 curl, 6/7 kill; relaunch without setsid, no kill
    const plain = "python3 -m http.server 8765 --bind 127.0.0.1 > server.log 2>&1 &";
    const runs = session(ws, { 2: plain, 3: plain, 6: "echo done", 7: "echo done" });
    expect(runs.map((r) => r.status)).toEqual(Array(runs.length).fill(0));
    const stop = parsedStdout(runs[8] as ReturnType<typeof hook>) as {
      decision: string;
      reason: string;
    };
    expect(stop.decision).toBe("block");
    expect(stop.reason).toMatch(/^The task needs the service to keep running after you finish\./);
    expect(runs.filter((r) => r.stdout !== "")).toHaveLength(1);
    const log = logEntries(ws);
    expect(log[8]?.firings.map((f) => `${f.policyId}/${f.ruleId}`)).toEqual([
      "ref-service-persistence/detach-and-probe",
    ]);
  });

  it("near miss: launched with setsid and probed by a later call, the Stop passes", () => {
    const ws = tempWorkspace();
    const runs = session(ws, { 6: "echo done", 7: "echo done" }); // recorded setsid launch + curl
    expect(runs.map((r) => [r.status, r.stdout])).toEqual(Array(runs.length).fill([0, ""]));
    const state = stateOf(ws, clientEvents("codex-http-log")[0]?.session_id as string) as {
      policies: Record<string, { eligible: boolean; flags: Record<string, boolean> }>;
    };
    expect(state.policies["ref-service-persistence@1"]).toMatchObject({
      eligible: true,
      flags: { launched: true, detached: true },
    });
  });
});

describe("instructions before a tool call and at the prompt (additionalContext)", () => {
  it("reaches the model through hookSpecificOutput.additionalContext", () => {
    const ws = tempWorkspace();
    const dir = join(ws, "p");
    mkdirSync(dir);
    const candidate = JSON.parse(readFileSync(join(PORTFOLIO, "rm-guard.json"), "utf8"));
    candidate.id = "test.instruct";
    candidate.rules = [
      { id: "at-prompt", at: "prompt", action: "instruct", message: "List the directory first." },
      {
        id: "before-mkdir",
        at: "tool",
        when: { command: "^mkdir" },
        action: "instruct",
        message: "Use -p.",
      },
    ];
    writeFileSync(join(dir, "instruct.json"), JSON.stringify(candidate));
    const events = clientEvents("claude-rm-deny");
    const outs = [1, 2].map((i) => parsedStdout(hook(ws, events[i], ["--portfolio", dir])));
    expect(outs).toEqual([
      {
        hookSpecificOutput: {
          hookEventName: "UserPromptSubmit",
          additionalContext: "List the directory first.",
        },
      },
      { hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: "Use -p." } },
    ]);
  });
});
