import {
  isCheck,
  isWrite,
  runsWrittenProgram,
  seenByAgent,
  toolCalls,
  writtenPaths,
} from "./shell.js";
import type { Detector } from "./types.js";

/**
 * The agent stopped without any check after its last write. A check whose output the agent
 * never saw (sent along with its final "done") checked nothing.
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
