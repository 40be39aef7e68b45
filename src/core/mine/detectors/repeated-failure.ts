import { callFailed, commandOf, normaliseCommand, toolCalls } from "./shell.js";
import type { Detector } from "./types.js";

/** Minimum identical failing runs that count as a loop. */
export const LOOP_MIN = 3;

/** The same failing command repeated (a loop). */
export const repeatedFailure: Detector = {
  id: "loop.repeated-failure",
  description: `the same failing command repeated ${LOOP_MIN}+ times`,
  detect(attempt) {
    const seen = new Map<string, number[]>();
    for (const call of toolCalls(attempt)) {
      const cmd = commandOf(call);
      if (!cmd || !callFailed(attempt, call)) continue;
      const key = normaliseCommand(cmd);
      seen.set(key, [...(seen.get(key) ?? []), call.index]);
    }
    return [...seen.entries()]
      .filter(([, idx]) => idx.length >= LOOP_MIN)
      .map(([cmd, idx]) => ({
        eventIndices: idx,
        reason: `${idx.length}× failing: ${cmd.slice(0, 80)}`,
      }));
  },
};
