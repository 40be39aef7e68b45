/**
 * The mechanism families fire knows by name (DESIGN.md §1, "the paper's frozen families"),
 * plus the generic one the drafter offers. The demo generator plants them, detectors
 * suggest them, the reference portfolio expresses them: one spelling everywhere.
 */
export const FAMILIES = [
  "service-persistence",
  "deployment-preservation",
  "database-evidence",
  "exact-replacement",
  "latex-final-log",
  "binary-equivalence",
  "dataset-token-accounting",
  "multi-answer-enumeration",
  "stop-without-check",
] as const;
export type FamilyId = (typeof FAMILIES)[number];

export const FAMILY_TITLES: Record<FamilyId, string> = {
  "service-persistence": "Service persistence: detached launch and a later probe",
  "deployment-preservation": "Deployment preservation: no destructive cleanup after a good probe",
  "database-evidence": "Database evidence: byte copy with sidecars before any open",
  "exact-replacement": "Exact replacement: byte-level allowlist and mechanical diff",
  "latex-final-log": "LaTeX final log: literal search of the final log",
  "binary-equivalence": "Binary equivalence: byte-for-byte comparison over diverse inputs",
  "dataset-token-accounting": "Dataset-token accounting: per-field reconciliation",
  "multi-answer-enumeration": "Multi-answer enumeration: enumerate, test, deduplicate, emit all",
  "stop-without-check": "Stop without checking the evaluator-facing artifact",
};

export function isFamilyId(s: string): s is FamilyId {
  return (FAMILIES as readonly string[]).includes(s);
}
