import { callFailed, commandOf, isVerification, programNotFound, toolCalls } from "./shell.js";
import type { Detector } from "./types.js";

/**
 * The agent stopped while its last verification (test, probe, build) was failing. A check whose
 * program could not be found ran nothing: it is no check, failing or not.
 */
export const stopFailedCheck: Detector = {
  id: "stop.last-check-failed",
  description: "stop while the last check (test run, probe, build) failed",
  mechanism: "stop-after-failed-check",
  detect(attempt) {
    const last = toolCalls(attempt)
      .filter((c) => isVerification(c) && !programNotFound(attempt, c))
      .at(-1);
    if (!last || !callFailed(attempt, last)) return [];
    return [
      {
        eventIndices: [last.index],
        reason: `last check failed: ${(commandOf(last) ?? "").slice(0, 80)}`,
      },
    ];
  },
};
