import type { Attempt, Event } from "../../model/attempt.js";
import { harnessRefused } from "./never-ran.js";
import { allWrites, emptySubmission } from "./paths.js";
import { callFailed, callSucceeded, commandOf, segments, stopIndex, toolCalls } from "./shell.js";
import type { Detector, DetectorHit } from "./types.js";

/**
 * A step that hands the work over (records it in the repository, sends it, submits it): a git
 * commit or push (after variable assignments and git's own options, `-C dir` and `-c key=value`
 * taking a value), or a command named `submit`. Each option is read one way only (a value
 * never starts with `-`), so a run of options cannot be split two ways: linear.
 */
const HAND_OVER =
  /^(?:\w+=\S*\s+)*(?:git\s+(?:-[cC]\s+[^-\s]\S*\s+|-(?![cC]\s)\S+\s+)*(?:commit|push)\b|submit\b)/;
const handsOver = (cmd: string): boolean => segments(cmd).some((s) => HAND_OVER.test(s));

/**
 * An empty submission where no change of the agent's went through, but its harness refused
 * changes it asked for (the reply they came in held more than one action, its preflight would
 * not run them) and none was asked for again in a form that ran: the agent's work never reached
 * the file, so not the grader either. No change asked for, or one that failed when it ran, is
 * no such reading (the agent never tried, or its edit was wrong).
 */
function refusedChanges(
  attempt: Attempt,
  writes: readonly { call: Event }[],
): Omit<DetectorHit, "detectorId" | "family">[] {
  const refused = writes.filter((w) => harnessRefused(attempt, w.call));
  const last = refused.at(-1)?.call.index;
  if (last === undefined) return [];
  const n = new Set(refused.map((w) => w.call.index)).size;
  return [
    {
      eventIndices: [last, stopIndex(attempt)],
      reason: `the harness refused the agent's ${n} change(s) before they ran (last at [${last}]: the reply held more than one action) and none ran later; the verifier graded an empty submission`,
      signature: "empty submission",
    },
  ];
}

/**
 * The verifier graded an empty submission although the agent changed files: its work never
 * reached the grader. The decisive event is the last hand-over step after the last change
 * that failed (a commit refused for want of an author identity, a push rejected) when there is
 * one; otherwise the stop. A hand-over after the last change that went through says nothing
 * was left undone (what was graded empty is the harness's reading of it: a branch, an
 * extraction), and the detector says nothing. Read from the verifier's own words about what
 * it received, for any harness; no task or benchmark is named.
 */
export const emptySubmissionAfterEdits: Detector = {
  id: "deliverable.submission-empty",
  description: "the verifier graded an empty submission although the agent changed files",
  mechanism: "artifact-never-written",
  detect(attempt) {
    if (attempt.outcome === "pass" || !emptySubmission(attempt)) return [];
    const writes = allWrites(attempt);
    const changed = writes.filter(
      (w) => callSucceeded(attempt, w.call) && !harnessRefused(attempt, w.call),
    );
    const lastChange = changed.at(-1)?.call.index;
    if (lastChange === undefined) return refusedChanges(attempt, writes);
    const handOvers = toolCalls(attempt).filter(
      (c) => c.index > lastChange && handsOver(commandOf(c) ?? ""),
    );
    if (handOvers.some((c) => callSucceeded(attempt, c))) return [];
    const failed = handOvers.findLast((c) => callFailed(attempt, c));
    return [
      {
        eventIndices: [lastChange, failed ? failed.index : stopIndex(attempt)],
        reason: failed
          ? `the agent changed ${changed.length} file(s), its hand-over at [${failed.index}] failed (${(commandOf(failed) ?? "").slice(0, 60)}) and was not redone; the verifier graded an empty submission`
          : `the agent changed ${changed.length} file(s); the verifier graded an empty submission`,
        signature: failed ? "hand-over failed" : "empty submission",
      },
    ];
  },
};
