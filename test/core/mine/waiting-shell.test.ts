import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runDetectors } from "../../../src/core/mine/detectors/index.js";
import {
  callSucceeded,
  commandOf,
  toolCalls,
  typedAtContinuation,
} from "../../../src/core/mine/detectors/shell.js";
import { heuristicLabel } from "../../../src/core/mine/heuristic.js";
import type { Attempt, Event } from "../../../src/core/model/attempt.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { collect } from "../ingest/collect.js";

/**
 * Two real Terminus-2 trials of one task (test/fixtures/harbor-terminus2-waiting/README.md):
 * one left its shell in an unclosed heredoc and typed every later command into it; its
 * sibling closed its heredocs and passed.
 */
let stuck: Attempt;
let sibling: Attempt;
beforeAll(async () => {
  const got = await collect([resolve(REPO_ROOT, "test/fixtures/harbor-terminus2-waiting")]);
  expect(got.errors).toEqual([]);
  stuck = got.attempts.find((a) => a.id.includes("8bfzFj2")) as Attempt;
  sibling = got.attempts.find((a) => a.id.includes("X6CZuwB")) as Attempt;
  expect(stuck).toBeDefined();
  expect(sibling).toBeDefined();
});

const hit = (x: Attempt, siblings: Attempt[] = []) =>
  runDetectors(x, { siblings }).find((h) => h.detectorId === "shell.waiting-for-input");
const call = (x: Attempt, re: RegExp) =>
  toolCalls(x).find((c) => re.test(commandOf(c) ?? "")) as Event;

describe("a terminal left waiting for an earlier command's input", () => {
  it("commands echoed only at the continuation prompt never ran", () => {
    const md5 = call(stuck, /^md5sum /);
    expect(typedAtContinuation(stuck, md5)).toBe(true);
    expect(callSucceeded(stuck, md5)).toBe(false);
    // the heredoc's own command echoes at the prompt line: it was typed at a shell
    const opener = call(stuck, /^cat > preprocess_data\.py << 'EOF'/);
    expect(typedAtContinuation(stuck, opener)).toBe(false);
  });

  it("names the state from the first swallowed command to the stop", () => {
    const h = hit(stuck);
    expect(h?.reason).toMatch(
      /^from event \d+ on, the terminal echoed the agent's commands only at its continuation prompt \('> ', an unclosed heredoc or quote after event \d+\): the last \d+ commands never ran, and the run ended so$/,
    );
    const opener = call(stuck, /^cat > preprocess_data\.py/);
    expect(h?.eventIndices).toContain(opener.index);
  });

  it("keeps stop-time readings from naming a mechanism: needs review, with the state", () => {
    const hits = runDetectors(stuck, { siblings: [sibling] });
    expect(hits.some((h) => h.detectorId === "stop.no-check-after-write")).toBe(true);
    const l = heuristicLabel(stuck, hits);
    expect(l.status).toBe("needs_review");
    expect(l.mechanismId).toBeUndefined();
    expect(l.preFailureState?.description).toMatch(/continuation prompt/);
    // without the waiting shell, the same hits name the stop check
    const without = hits.filter((h) => h.detectorId !== "shell.waiting-for-input");
    expect(heuristicLabel(stuck, without).mechanismId).toBe("stop-without-check");
  });

  it("near miss: a sibling whose heredocs closed is never read as waiting", () => {
    expect(toolCalls(sibling).some((c) => typedAtContinuation(sibling, c))).toBe(false);
    expect(hit(sibling)).toBeUndefined();
  });

  it("near miss: commands typed at Python's prompt ran in the interpreter", () => {
    const last = stuck.events.at(-1) as Event;
    const repl: Event[] = [
      { index: 0, kind: "tool_call", tool: "bash_command", callId: "py_0", command: "python3" },
      { index: 0, kind: "tool_call", tool: "bash_command", callId: "py_1", command: "x = 2" },
      { index: 0, kind: "tool_call", tool: "bash_command", callId: "py_2", command: "print(x)" },
      {
        index: 0,
        kind: "tool_result",
        tool: "bash_command",
        callId: "py_0",
        output:
          "New Terminal Output:\n\nroot@a3882379:/app# python3\n>>> x = 2\n>>> print(x)\n2\n>>>",
      },
    ];
    const before = stuck.events.findIndex((e) => /^cat > preprocess_data/.test(e.command ?? ""));
    const events = [...stuck.events.slice(0, before), ...repl, last].map((e, index) => ({
      ...e,
      index,
    }));
    const x = { ...stuck, events };
    expect(toolCalls(x).some((c) => typedAtContinuation(x, c))).toBe(false);
    expect(hit(x)).toBeUndefined();
  });

  it("near miss: the agent closing the heredoc in a later turn ends the state", () => {
    // a pane where the terminator was typed and the prompt came back, then a command ran
    const last = stuck.events.at(-1) as Event;
    const fixed: Event[] = [
      { index: 0, kind: "tool_call", tool: "bash_command", callId: "fix_1", command: "EOF" },
      { index: 0, kind: "tool_call", tool: "bash_command", callId: "fix_2", command: "ls -la" },
      {
        index: 0,
        kind: "tool_result",
        tool: "bash_command",
        callId: "fix_1",
        output:
          "New Terminal Output:\n\n> EOF\nroot@a3882379:/home/user/training_pipeline# ls -la\ntotal 8\nroot@a3882379:/home/user/training_pipeline#",
      },
    ];
    const events = [...stuck.events.slice(0, -1), ...fixed, last].map((e, index) => ({
      ...e,
      index,
    }));
    expect(hit({ ...stuck, events })).toBeUndefined();
  });
});
