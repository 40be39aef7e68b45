import { type Attempt, sameTask } from "../model/attempt.js";
import { replayAttempt } from "../policy/replay.js";
import type { CompiledPolicy } from "../policy/types.js";
import { detectorById, runDetectors } from "./detectors/index.js";
import type { Label } from "./label.js";

export type MarkerKind = "capability" | "pre-failure" | "detector" | "fires";

/** Something worth jumping to in an attempt's timeline. */
export interface Marker {
  eventIndex: number;
  kind: MarkerKind;
  text: string;
}

/** The other attempts at the same task and version (what sibling-comparing detectors look at). */
export function siblingsOf(attempt: Attempt, attempts: readonly Attempt[]): Attempt[] {
  return attempts.filter((a) => a.id !== attempt.id && sameTask(a, attempt));
}

/**
 * The markers of one attempt, sorted by event: the label's capability evidence and
 * pre-failure state, detector hits (capability detectors count as capability evidence),
 * and where each given policy would fire on replay (firing messages cut to 200 chars).
 */
export function attemptMarkers(
  attempt: Attempt,
  siblings: readonly Attempt[],
  label: Label | undefined,
  policies: readonly CompiledPolicy[],
): Marker[] {
  const out: Marker[] = [];
  for (const c of label?.capabilityEvidence ?? [])
    out.push({ eventIndex: c.eventIndex, kind: "capability", text: c.why });
  if (label?.preFailureState)
    out.push({
      eventIndex: label.preFailureState.eventIndex,
      kind: "pre-failure",
      text: label.preFailureState.description,
    });
  for (const h of runDetectors(attempt, { siblings: [...siblings] })) {
    const capability = detectorById(h.detectorId)?.capability === true;
    for (const i of h.eventIndices)
      out.push({
        eventIndex: i,
        kind: capability ? "capability" : "detector",
        text: `${h.detectorId}: ${h.reason}`,
      });
  }
  if (policies.length > 0) {
    for (const f of replayAttempt([...policies], attempt).firings)
      out.push({
        eventIndex: f.eventIndex,
        kind: "fires",
        text: `${f.policyId} ${f.ruleId} ${f.action}: ${f.message.slice(0, 200)}`,
      });
  }
  return out.sort((a, b) => a.eventIndex - b.eventIndex);
}
