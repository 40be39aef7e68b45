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

/** Shell calls sent in one batch and answered by one pane (the first call's result), as Terminus does. */
function batch(pane: string, ...commands: string[]): Event[] {
  const calls: Event[] = commands.map((command, i) => ({
    index: 0,
    kind: "tool_call",
    tool: "bash_command",
    callId: `b_${i}`,
    command,
  }));
  const result: Event = {
    index: 0,
    kind: "tool_result",
    tool: "bash_command",
    callId: "b_0",
    output: `New Terminal Output:\n\n${pane}`,
  };
  return [...calls, result];
}

/** The stuck trial with `evs` in place of its events from position `from` up to its stop. */
function replacedFrom(from: number, evs: Event[]): Attempt {
  const events = [...stuck.events.slice(0, from), ...evs, stuck.events.at(-1) as Event];
  return { ...stuck, events: events.map((e, index) => ({ ...e, index })) };
}

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
    const pane = "root@a3882379:/app# python3\n>>> x = 2\n>>> print(x)\n2\n>>>";
    const before = stuck.events.findIndex((e) => /^cat > preprocess_data/.test(e.command ?? ""));
    const x = replacedFrom(before, batch(pane, "python3", "x = 2", "print(x)"));
    expect(toolCalls(x).some((c) => typedAtContinuation(x, c))).toBe(false);
    expect(hit(x)).toBeUndefined();
  });

  it("near miss: the agent closing the heredoc in a later turn ends the state", () => {
    // the terminator typed, the prompt back, then a command that ran
    const pane =
      "> EOF\nroot@a3882379:/home/user/training_pipeline# ls -la\ntotal 8\nroot@a3882379:/home/user/training_pipeline#";
    const end = stuck.events.length - 1;
    expect(hit(replacedFrom(end, batch(pane, "EOF", "ls -la")))).toBeUndefined();
  });
});
