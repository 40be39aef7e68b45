import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { paramsOf } from "../../src/core/draft/mechanism-template.js";
import { loadTemplates } from "../../src/core/draft/templates.js";
import { Candidate } from "../../src/core/policy/schema.js";
import { clientEvents, hook, parsedStdout, stateOf, tempWorkspace } from "./hook-helpers.js";

/**
 * Mechanism templates through the built `fire hook`, fed a real Claude Code session's stdin
 * (prompt and commands replaced): task values are captured from the transcript's task, marks
 * and mentions live in the session state file, and the answers are the hook protocol's.
 */
function portfolio(ws: string, mechanismId: string, afterCalls?: number): string {
  const t = loadTemplates().byMechanism.get(mechanismId)!;
  const params = { ...paramsOf({}, []), ...(afterCalls ? { afterCalls } : {}) };
  const c = Candidate.parse({
    id: `live-${mechanismId}`,
    version: 1,
    ...t.build(params),
    eligibility: { allOf: t.requires, anyOf: [], noneOf: [] },
  });
  const dir = join(ws, "p");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${c.id}.json`), JSON.stringify(c));
  return dir;
}

/** The recorded session with another task and commands at the given event indices. */
function session(ws: string, dir: string, task: string, commands: Record<number, string>) {
  return clientEvents("claude-rm-deny").map((e, i) => {
    const out: Record<string, unknown> = { ...e };
    if (e.hook_event_name === "UserPromptSubmit") out.prompt = task;
    const cmd = commands[i];
    if (cmd) out.tool_input = { command: cmd, description: "scripted command" };
    return parsedStdout(hook(ws, out, ["--portfolio", dir]));
  });
}

describe("overwrote-existing-file through the hook", () => {
  const TASK =
    "The existing notes.md lists the build steps; add a line about the cleanup, then finish.";

  it("denies a blind overwrite of the file the task says exists", () => {
    const ws = tempWorkspace();
    const outs = session(ws, portfolio(ws, "overwrote-existing-file"), TASK, {
      2: "echo cleanup > notes.md",
      3: "echo cleanup > notes.md",
    });
    expect(outs[2]).toMatchObject({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: expect.stringMatching(
          /^Not yet: the task says this file already exists/,
        ),
      },
    });
  });

  it("near miss: read first, then append — allowed", () => {
    const ws = tempWorkspace();
    const outs = session(ws, portfolio(ws, "overwrote-existing-file"), TASK, {
      2: "cat notes.md",
      3: "cat notes.md",
      4: "echo cleanup >> notes.md",
    });
    expect(outs.slice(0, 5)).toEqual([null, null, null, null, null]);
  });
});

describe("artifact-never-written through the hook", () => {
  const TASK =
    "Clean the build directory and write what you removed to `removed.txt`, then finish.";

  it("blocks the Stop while the named file was never written", () => {
    const ws = tempWorkspace();
    const outs = session(ws, portfolio(ws, "artifact-never-written"), TASK, {});
    expect(outs[5]).toMatchObject({
      decision: "block",
      reason: expect.stringMatching(/^Before you stop: the task names a file you have not written/),
    });
  });

  it("near miss: the file was written by a shell redirect — the Stop passes", () => {
    const ws = tempWorkspace();
    const outs = session(ws, portfolio(ws, "artifact-never-written"), TASK, {
      4: "rm -rf build && echo build > removed.txt",
    });
    expect(outs.every((o) => o === null)).toBe(true);
  });
});

describe("deadline-no-deliverable through the hook: a share of the stated time limit", () => {
  const events = clientEvents("claude-rm-deny");
  const withTask = (task: string, i: number) => {
    const e = { ...events[i] };
    if (e.hook_event_name === "UserPromptSubmit") e.prompt = task;
    if (e.hook_event_name === "PreToolUse")
      e.tool_input = { command: "ls -la", description: "look" };
    return e;
  };
  const nudge = {
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      additionalContext: expect.stringMatching(/the deliverable the task asks for does not exist/),
    },
  };

  it("fires at a tool call once half the stated limit has passed (the hook stamps live events)", async () => {
    const ws = tempWorkspace();
    const dir = portfolio(ws, "deadline-no-deliverable", 100);
    const task = "Write the summary to `summary.md`. You have 2 seconds.";
    hook(ws, withTask(task, 0), ["--portfolio", dir]);
    expect(parsedStdout(hook(ws, withTask(task, 1), ["--portfolio", dir]))).toBeNull();
    const started = Date.now(); // the prompt was stamped before its hook returned
    const state = stateOf(ws, String(events[1]?.session_id));
    expect(typeof state.startedAt).toBe("number");
    // wait until half the limit (1 s) has surely passed since the prompt was stamped
    const left = 1_100 - (Date.now() - started);
    if (left > 0) await new Promise((r) => setTimeout(r, left));
    const r = hook(ws, withTask(task, 2), ["--portfolio", dir]);
    expect(parsedStdout(r)).toMatchObject(nudge);
  });

  it("near miss: a long stated limit keeps it quiet, even past the call-count fallback", () => {
    const ws = tempWorkspace();
    const dir = portfolio(ws, "deadline-no-deliverable", 1);
    const task = "Write the summary to `summary.md`. You have 10 hours.";
    const outs = [0, 1, 2, 3, 4].map((i) =>
      parsedStdout(hook(ws, withTask(task, i), ["--portfolio", dir])),
    );
    expect(outs).toEqual([null, null, null, null, null]);
  });

  it("without a stated limit the call count decides", () => {
    const ws = tempWorkspace();
    const dir = portfolio(ws, "deadline-no-deliverable", 1);
    const task = "Write the summary to `summary.md`.";
    hook(ws, withTask(task, 0), ["--portfolio", dir]);
    hook(ws, withTask(task, 1), ["--portfolio", dir]);
    const r = hook(ws, withTask(task, 2), ["--portfolio", dir]);
    expect(parsedStdout(r)).toMatchObject(nudge);
  });
});
