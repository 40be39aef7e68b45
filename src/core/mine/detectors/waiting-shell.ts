import { commandOf, toolCalls, typedAtContinuation } from "./shell.js";
import type { Detector, DetectorHit } from "./types.js";

/**
 * The run ended with the agent's terminal waiting for the rest of an earlier command (an
 * unclosed heredoc or quote): its last commands echo only at the continuation prompt, so
 * none of them ran. Whatever the agent concluded from their (empty) output, it never wrote,
 * checked or stopped anything after that point; a tool-time rule on output that holds only
 * continuation prompts could have told it. No mechanism id of its own: the hit names the
 * state and keeps stop-time readings, which presume the last commands ran, from naming one.
 */
export const waitingShell: Detector = {
  id: "shell.waiting-for-input",
  description: "the run ended with the terminal waiting for an earlier command's input",
  detect(attempt) {
    const calls = toolCalls(attempt).filter((c) => commandOf(c) !== undefined);
    let first = calls.length;
    while (first > 0) {
      const c = calls[first - 1];
      if (!c || !typedAtContinuation(attempt, c)) break;
      first--;
    }
    const stuck = calls.slice(first);
    // one swallowed command can be a slip the next turn fixes; the run must end that way
    if (stuck.length < 2) return [];
    const opener = calls[first - 1];
    const at = stuck[0]?.index ?? 0;
    return [
      {
        eventIndices: [...(opener ? [opener.index] : []), at, stuck.at(-1)?.index ?? at],
        reason:
          `from event ${at} on, the terminal echoed the agent's commands only at its continuation ` +
          `prompt ('> ', an unclosed heredoc or quote${opener ? ` after event ${opener.index}` : ""}): ` +
          `the last ${stuck.length} commands never ran, and the run ended so`,
      },
    ];
  },
};

/**
 * The hit saying the run ended with its terminal waiting for input, if any. Both labellers
 * hold back stop-time mechanisms on it: they presume the last commands ran.
 */
export function endedWaiting(hits: readonly DetectorHit[]): DetectorHit | undefined {
  return hits.find((h) => h.detectorId === waitingShell.id);
}
