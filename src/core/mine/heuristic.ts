import { FAMILIES, type FamilyId } from "../families.js";
import type { Attempt } from "../model/attempt.js";
import { detectorById } from "./detectors/index.js";
import { stopIndex } from "./detectors/shell.js";
import type { DetectorHit } from "./detectors/types.js";
import type { InterventionPoint, Label } from "./label.js";
import { faultOf } from "./triage.js";

/** Short mechanism noun phrase per family (what the heuristic labeller says). */
export const FAMILY_MECHANISM: Record<FamilyId, string> = {
  "service-persistence": "server launched in the agent session and not kept running at stop",
  "deployment-preservation": "destructive cleanup after a successful deployment probe",
  "database-evidence": "evidence database opened read-write before a byte copy",
  "exact-replacement": "exact replacement damaged by a rewrite or left unverified by a diff",
  "latex-final-log": "LaTeX final log not searched for overfull boxes after the last build",
  "binary-equivalence": "re-implementation never compared byte for byte with the original",
  "dataset-token-accounting": "multi-field token count not reconciled per field before answering",
  "multi-answer-enumeration": "only one of several valid answers emitted",
  "stop-without-check": "stopped without checking the evaluator-facing artifact",
};

/** Where a bounded intervention would act, per family. */
export const FAMILY_POINT: Record<FamilyId, InterventionPoint> = {
  "service-persistence": "stop",
  "deployment-preservation": "tool",
  "database-evidence": "tool",
  "exact-replacement": "stop",
  "latex-final-log": "stop",
  "binary-equivalence": "stop",
  "dataset-token-accounting": "stop",
  "multi-answer-enumeration": "stop",
  "stop-without-check": "stop",
};

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
  markers: readonly string[] = [],
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
  const familyHits = hits.filter((h) => h.family !== undefined);
  const family = PRIORITY.find((f) => familyHits.some((h) => h.family === f));
  const rationale = hits
    .map((h) => `${h.detectorId}: ${h.reason}`)
    .join("; ")
    .slice(0, 4000);
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
