import type { Attempt } from "../model/attempt.js";
import { offeredNoRunner } from "./detectors/shell.js";
import type { DetectorHit } from "./detectors/types.js";
import { endedWaiting } from "./detectors/waiting-shell.js";
import type { Mechanism } from "./mechanisms.js";

/**
 * Why a mechanism cannot be named for this attempt whatever its evidence, or undefined: the
 * readings both labellers share (the heuristic drops such a candidate, the LLM's name is kept
 * for review with this reason). A run that ended with its terminal waiting for an earlier
 * command's input never ran its last commands, and a stop-time reading presumes they ran; an
 * agent offered no tool that runs code, or told by its task not to run the code, could not have
 * checked its work by running it.
 */
/**
 * The task tells the agent not to run what it writes: "Don't run it.", "Don't run it — just
 * refactor it", "do not … run anything.", "never run `app.py` directly.", "without running it". Not a ban on other programs
 * ("do not run npm install") or on one way of running ("do not run it as root").
 */
const FORBIDS_RUNNING =
  /\b(?:do not|don['\u2019]t|never)\s+(?:[a-z ]{1,60}?\s+or\s+)?(?:run|execute)\s+(?:it|anything|the\s+(?:code|script|program|tests?)|`[^`\n]{1,200}\.\w{1,8}`|[\w./-]{1,200}\.\w{1,8})(?:\s+(?:yourself|directly|at all))?(?=\s*(?:[.;,!)\u2014\u2013]|-\s|$))|\bwithout\s+running\s+(?:it|the\s+(?:code|script|program))\b/im;

export function forbidsRunning(taskText: string): boolean {
  return FORBIDS_RUNNING.test(taskText);
}

export function heldBack(
  attempt: Attempt,
  hits: readonly DetectorHit[],
  m: Pick<Mechanism, "id" | "point">,
): string | undefined {
  if (m.point === "stop" && endedWaiting(hits))
    return "the run ended with its terminal waiting for an earlier command's input: its last commands never ran";
  if (m.id === "stop-without-check" && offeredNoRunner(attempt))
    return "the agent was offered no tool that runs code, so it could not check";
  if (m.id === "stop-without-check" && forbidsRunning(attempt.taskText))
    return "the task told the agent not to run the code, so it could not check by running it";
  return undefined;
}
