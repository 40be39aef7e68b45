import {
  commandOf,
  isCheck,
  isVerification,
  isWrite,
  programNotFound,
  runsWrittenProgram,
  seenByAgent,
  toolCalls,
  writtenPaths,
} from "./shell.js";
import type { Detector } from "./types.js";

/**
 * The agent stopped without any check after its last write. A check whose output the agent
 * never saw (sent along with its final "done") checked nothing, nor did one whose program
 * could not be found.
 */
export const stopNoCheck: Detector = {
  id: "stop.no-check-after-write",
  description: "stop without any check (read, test, probe, run) after the last write",
  family: "stop-without-check",
  detect(attempt) {
    const calls = toolCalls(attempt);
    const lastWrite = calls.filter(isWrite).at(-1);
    if (!lastWrite) return [];
    const written = new Set(calls.filter((c) => c.index <= lastWrite.index).flatMap(writtenPaths));
    if (
      calls.some(
        (c) =>
          c.index >= lastWrite.index &&
          (isCheck(c) || runsWrittenProgram(c, written)) &&
          !programNotFound(attempt, c) &&
          seenByAgent(attempt, c),
      )
    )
      return [];
    const unread = calls.some((c) => c.index > lastWrite.index && isCheck(c));
    return [
      {
        eventIndices: [lastWrite.index],
        reason: unread
          ? "the checks after the last write ran with the final stop: their output was never read"
          : "no check of any kind after the last write",
      },
    ];
  },
};

/**
 * The agent stopped right after its last check could not run: the check's own program was not
 * found (`pytest: command not found`, `javac: command not found`). Its last check checked
 * nothing, so it is a stop without a check (not one after a failing check); a rule can still
 * say "your check did not run" before the stop.
 */
export const stopCheckNotRun: Detector = {
  id: "stop.check-did-not-run",
  description: "stop right after the last check could not run (its program was not found)",
  family: "stop-without-check",
  detect(attempt) {
    const calls = toolCalls(attempt);
    const last = calls.filter(isVerification).at(-1);
    if (!last || !programNotFound(attempt, last)) return [];
    return [
      {
        eventIndices: [last.index],
        reason: `the last check could not run: ${(commandOf(last) ?? "").slice(0, 80)}`,
      },
    ];
  },
};
