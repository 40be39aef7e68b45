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
 * agent offered no tool that runs code could not have checked its work by running it.
 */
export function heldBack(
  attempt: Attempt,
  hits: readonly DetectorHit[],
  m: Pick<Mechanism, "id" | "point">,
): string | undefined {
  if (m.point === "stop" && endedWaiting(hits))
    return "the run ended with its terminal waiting for an earlier command's input: its last commands never ran";
  if (m.id === "stop-without-check" && offeredNoRunner(attempt))
    return "the agent was offered no tool that runs code, so it could not check";
  return undefined;
}
