import { FAMILIES, type FamilyId } from "../families.js";
import type { Attempt } from "../model/attempt.js";
import { detectorById } from "./detectors/index.js";
import { stopIndex } from "./detectors/shell.js";
import type { DetectorHit } from "./detectors/types.js";
import type { FaultMarkers } from "./faults/index.js";
import type { InterventionPoint, Label } from "./label.js";
import { familyMechanism, mechanismById } from "./mechanisms.js";
import { faultOf } from "./triage.js";

/** Short mechanism noun phrase per family (what the heuristic labeller says): the registry's name. */
export const FAMILY_MECHANISM = Object.fromEntries(
  FAMILIES.map((f) => [f, familyMechanism(f).name]),
) as Record<FamilyId, string>;

/** Where a bounded intervention would act, per family: the registry's point. */
export const FAMILY_POINT = Object.fromEntries(
  FAMILIES.map((f) => [f, familyMechanism(f).point]),
) as Record<FamilyId, InterventionPoint>;

/**
 * Mechanisms with no family, most specific evidence first: an unsafe action, then what
 * happened to the deliverable, then how the run went wrong (inputs, deadline, loops,
 * unchecked expectations). The first one with a hit names the label.
 */
export const OPEN_PRIORITY: readonly string[] = [
  "overwrote-existing-file",
  "artifact-wrong-path",
  "artifact-never-written",
  "task-input-missed",
  "deadline-no-deliverable",
  "repeated-tool-error",
  "constraint-unchecked",
];

/** Families in the order the labeller prefers them: specific before the generic stop check. */
const PRIORITY: readonly FamilyId[] = [
  ...FAMILIES.filter((f) => f !== "stop-without-check"),
  "stop-without-check",
];

function isCapabilityHit(h: DetectorHit): boolean {
  return detectorById(h.detectorId)?.capability === true;
}

/**
 * Fills a label from detector hits alone (`source: "heuristic"`), so mining runs
 * offline. Deterministic: the same attempt and hits give the same label.
 */
export function heuristicLabel(
  attempt: Attempt,
  hits: readonly DetectorHit[],
  markers: readonly string[] | FaultMarkers = [],
): Label {
  const detectorIds = [...new Set(hits.map((h) => h.detectorId))];
  const base = { attemptId: attempt.id, source: "heuristic" as const, detectorIds };
  const fault = faultOf(attempt, markers);
  if (fault && (fault.reason === "provider_fault" || fault.reason === "verifier_fault")) {
    return {
      ...base,
      isProceduralLoss: false,
      capabilityEvidence: [],
      preFailureState: null,
      mechanism:
        fault.reason === "provider_fault" ? "provider or infrastructure fault" : "verifier fault",
      interventionPoint: "none",
      exclusion: fault.reason,
      confidence: 0.9,
      rationale: fault.detail,
    };
  }
  const first = attempt.events[0]?.index ?? 0;
  const capabilityEvidence = hits
    .filter(isCapabilityHit)
    .flatMap((h) =>
      h.eventIndices.length > 0
        ? [{ eventIndex: h.eventIndices[0] ?? first, why: h.reason }]
        : [{ eventIndex: first, why: h.reason }],
    );
  const rationale = hits
    .map((h) => `${h.detectorId}: ${h.reason}`)
    .join("; ")
    .slice(0, 4000);
  const familyHits = hits.filter((h) => h.family !== undefined);
  let family = PRIORITY.find((f) => familyHits.some((h) => h.family === f));
  const openId =
    family === undefined || family === "stop-without-check"
      ? OPEN_PRIORITY.find((id) => hits.some((h) => h.mechanism === id))
      : undefined;
  const open = openId ? mechanismById(openId) : undefined;
  if (open) {
    family = undefined;
    const mh = hits.filter((h) => h.mechanism === open.id);
    const first = mh[0];
    const evidenceEvents = [...new Set(mh.flatMap((h) => h.eventIndices))].sort((a, b) => a - b);
    return {
      ...base,
      mechanismId: open.id,
      ...(first?.signature ? { signature: first.signature } : {}),
      evidenceEvents,
      isProceduralLoss: true,
      capabilityEvidence,
      preFailureState: {
        eventIndex: first?.eventIndices.at(-1) ?? stopIndex(attempt),
        description: first?.reason ?? open.name,
      },
      mechanism: open.name,
      interventionPoint: open.point,
      exclusion: "none",
      confidence: capabilityEvidence.length > 0 ? 0.7 : 0.55,
      rationale: rationale || open.name,
    };
  }
  if (family) {
    const hit = familyHits.find((h) => h.family === family);
    const idx = hit?.eventIndices.at(-1) ?? stopIndex(attempt);
    const hasCapability = capabilityEvidence.length > 0;
    return {
      ...base,
      family,
      mechanismId: family,
      ...(hit ? { evidenceEvents: [...hit.eventIndices] } : {}),
      isProceduralLoss: true,
      capabilityEvidence,
      preFailureState: { eventIndex: idx, description: hit?.reason ?? FAMILY_MECHANISM[family] },
      mechanism: FAMILY_MECHANISM[family],
      interventionPoint: FAMILY_POINT[family],
      exclusion: "none",
      confidence: hasCapability ? 0.75 : 0.5,
      rationale: rationale || FAMILY_MECHANISM[family],
    };
  }
  const struggled = hits.some((h) =>
    ["loop.repeated-failure", "agent.gave-up", "run.timeout"].includes(h.detectorId),
  );
  // Without a family mechanism, in-trace successes (builds, probes) do not show the task
  // was within reach; only a passing sibling does.
  const gap = !hits.some((h) => h.detectorId === "capability.passing-sibling");
  return {
    ...base,
    isProceduralLoss: false,
    capabilityEvidence,
    preFailureState: null,
    mechanism: gap
      ? "no evidence the agent could solve the task"
      : "no observable procedural omission",
    interventionPoint: "none",
    exclusion: gap ? "capability_gap" : "no_intervention_point",
    confidence: struggled ? 0.6 : 0.4,
    rationale:
      rationale ||
      (gap
        ? "no capability evidence and no detector fired"
        : "capability evidence but no family detector fired"),
  };
}
