import type { Attempt, Event } from "../../model/attempt.js";
import { isScratch } from "./destructive-after-probe.js";
import { harnessRefused } from "./never-ran.js";
import {
  allWrites,
  emptySubmission,
  foundInPlace,
  namedPaths,
  samePath,
  verifierMissing,
  writtenContent,
} from "./paths.js";
import {
  callFailed,
  callSucceeded,
  commandOf,
  isWrite,
  outputOf,
  segments,
  stopIndex,
  toolCalls,
} from "./shell.js";
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
 * Whether a change the agent asked for was to a file the work is graded on, not its scratch:
 * outside scratch space, and to a file the task or the verifier names, one the agent found in
 * place, or one edited in place (`sed -i`, an editor's old/new text: the file was there
 * before). A new script of its own (`cat > reproduce.py`) or a log (`pytest > log.txt`) is none.
 */
function deliverableChange(a: Attempt, w: { path: string; call: Event }): boolean {
  if (isScratch(w.path)) return false;
  const named =
    namedPaths(a.taskText).some((n) => samePath(n, w.path)) ||
    verifierMissing(a).paths.some((n) => samePath(n, w.path)) ||
    (a.verifierOutput ?? "").includes(w.path);
  if (named || foundInPlace(a, w.path)) return true;
  return writtenContent(w.call) === undefined && !(commandOf(w.call) ?? "").includes(">");
}

/**
 * An empty submission where no change of the agent's went through, but its harness refused
 * changes to the graded files it asked for (the reply they came in held more than one action,
 * its preflight would not run them) and no change ran after the first of them, succeeded or
 * failed: the agent's work never reached the file, so not the grader either. No change asked
 * for, a refused scratch script, or a change that ran and failed (or changed nothing) is no
 * such reading: the agent never tried, or its edit was wrong.
 */
function refusedChanges(
  attempt: Attempt,
  writes: readonly { path: string; call: Event }[],
): Omit<DetectorHit, "detectorId" | "family">[] {
  const refused = writes.filter(
    (w) => harnessRefused(attempt, w.call) && deliverableChange(attempt, w),
  );
  const first = refused[0]?.call.index;
  const last = refused.at(-1)?.call;
  if (first === undefined || !last) return [];
  const ranLater = toolCalls(attempt).some(
    (c) => c.index > first && isWrite(c) && !harnessRefused(attempt, c),
  );
  if (ranLater) return [];
  const n = new Set(refused.map((w) => w.call.index)).size;
  const said = outputOf(attempt, last).trim().split("\n")[0]?.slice(0, 80) ?? "";
  return [
    {
      eventIndices: [last.index, stopIndex(attempt)],
      reason: `the harness refused the agent's ${n} change(s) to ${refused[0]?.path} before they ran (last at [${last.index}]: "${said}") and no change ran after them; the verifier graded an empty submission`,
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
