import { detectorById, runDetectors } from "../../core/mine/detectors/index.js";
import type { Label } from "../../core/mine/label.js";
import type { Attempt, Event } from "../../core/model/attempt.js";
import type { CompiledPolicy } from "../../core/policy/types.js";
import { replayAttempt } from "../../core/replay/replay.js";

export type MarkerKind = "capability" | "pre-failure" | "detector" | "fires";

/** Something worth jumping to in an attempt's timeline. */
export interface Marker {
  eventIndex: number;
  kind: MarkerKind;
  text: string;
}

/** One-letter tags shown in the timeline's marker column (readable without colour). */
export const MARKER_TAG: Record<MarkerKind, string> = {
  capability: "C",
  "pre-failure": "!",
  detector: "D",
  fires: "F",
};

/**
 * The markers of one attempt, from core only: the label's capability evidence and
 * pre-failure state, detector hits (capability detectors count as capability evidence),
 * and where each valid candidate would fire on replay.
 */
export function attemptMarkers(
  attempt: Attempt,
  siblings: Attempt[],
  label: Label | undefined,
  policies: CompiledPolicy[],
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
  for (const h of runDetectors(attempt, { siblings })) {
    const capability = detectorById(h.detectorId)?.capability === true;
    for (const i of h.eventIndices)
      out.push({
        eventIndex: i,
        kind: capability ? "capability" : "detector",
        text: `${h.detectorId}: ${h.reason}`,
      });
  }
  if (policies.length > 0) {
    for (const f of replayAttempt(policies, attempt).firings)
      out.push({
        eventIndex: f.eventIndex,
        kind: "fires",
        text: `${f.policyId} ${f.ruleId} ${f.action}: ${f.message.slice(0, 200)}`,
      });
  }
  return out.sort((a, b) => a.eventIndex - b.eventIndex);
}

/** One line for an event in the timeline. */
export function eventLine(e: Event): string {
  const first = (s: string | undefined) => (s ?? "").replace(/\s+/g, " ").trim();
  switch (e.kind) {
    case "tool_call":
      return `$ ${first(e.command ?? `${e.tool ?? "tool"} ${e.input ?? ""}`)}`;
    case "tool_result":
      return `${e.exitCode !== undefined ? `exit ${e.exitCode} ` : ""}${e.isError ? "error " : ""}${first(e.output)}`;
    case "hook":
      return `hook ${e.hook?.event ?? ""} ${e.hook?.decision ?? ""} ${first(e.hook?.text)}`;
    case "stop":
      return "stop";
    default:
      return `${e.role ? `${e.role}: ` : ""}${first(e.input)}`;
  }
}
