import { z } from "zod";

/** Why a failed attempt is out of scope for runtime policies. */
export const Exclusion = z.enum([
  "none",
  "provider_fault",
  "verifier_fault",
  "capability_gap",
  "no_intervention_point",
]);
export type Exclusion = z.infer<typeof Exclusion>;

export const InterventionPoint = z.enum(["prompt", "tool", "stop", "none"]);
export type InterventionPoint = z.infer<typeof InterventionPoint>;

/**
 * The two kinds of in-scope failure, one definition for every labeller:
 * - `procedural_loss`: capability is evidenced (a passing sibling of the same task, or a
 *   working intermediate result in the same trace) and an observable state preceded the loss;
 * - `policy_addressable`: no capability evidence, but an observable state where a bounded
 *   instruction or denial could have changed the outcome (no deliverable before the deadline,
 *   an unchanged retry loop, a stop with the deliverable missing or right after announcing a write).
 * What no runtime rule could address is a `capability_gap` exclusion.
 */
export const InScopeKind = z.enum(["procedural_loss", "policy_addressable"]);
export type InScopeKind = z.infer<typeof InScopeKind>;

/**
 * Whether the label names its mechanism: `named` only with evidence a reviewer would accept
 * for each claim; otherwise `needs_review` (kept in scope with the evidence found so far,
 * never a guessed mechanism).
 */
export const LabelStatus = z.enum(["named", "needs_review"]);
export type LabelStatus = z.infer<typeof LabelStatus>;

/**
 * One cited piece of evidence behind one claim of a label: an event of the attempt, a line
 * of the verifier's output, a passing sibling, or the trial's result record.
 */
export const LabelEvidence = z.strictObject({
  claim: z.enum(["capability", "state", "mechanism", "fault", "addressable"]),
  from: z.enum(["event", "verifier", "sibling", "result"]),
  eventIndex: z.number().int().optional(),
  file: z.string().optional(),
  line: z.number().int().positive().optional(),
  /** The sibling attempt, for `from: "sibling"`. */
  attemptId: z.string().optional(),
  excerpt: z.string().max(400),
});
export type LabelEvidence = z.infer<typeof LabelEvidence>;

/**
 * What a labeller says about one failed attempt. The LLM answers exactly this shape
 * (structured output); the heuristic labeller fills the same shape from detectors.
 */
export const LabelAnswer = z.strictObject({
  isProceduralLoss: z.boolean(),
  capabilityEvidence: z.array(z.strictObject({ eventIndex: z.number().int(), why: z.string() })),
  preFailureState: z
    .strictObject({ eventIndex: z.number().int(), description: z.string() })
    .nullable(),
  mechanism: z.string().max(200),
  interventionPoint: InterventionPoint,
  exclusion: Exclusion,
  confidence: z.number().min(0).max(1),
  rationale: z.string().max(4000),
});
export type LabelAnswer = z.infer<typeof LabelAnswer>;

/** A stored label: the answer plus where it came from. */
export const Label = LabelAnswer.extend({
  attemptId: z.string(),
  source: z.enum(["llm", "heuristic"]),
  /** Known family the mechanism maps to, when one fits (see core/families.ts). */
  family: z.string().optional(),
  detectorIds: z.array(z.string()),
  model: z.string().optional(),
  /** Set when labelling failed: the attempt is kept as "unlabelled: reason". */
  unlabelledReason: z.string().optional(),
  /**
   * Known mechanism id (core/mine/mechanisms.ts) when one fits. Absent in labels cached
   * before mechanisms existed and in LLM labels whose free-text mechanism matched none.
   */
  mechanismId: z.string().optional(),
  /**
   * Normalized evidence of the mechanism (the repeated error text, the kind of missing
   * artifact, …): clusters group by (mechanismId, interventionPoint, signature).
   */
  signature: z.string().max(200).optional(),
  /** Indices of the events that show the mechanism (event `index` values). */
  evidenceEvents: z.array(z.number().int()).optional(),
  /** In-scope failures only: which kind (absent on exclusions and in old caches). */
  kind: InScopeKind.optional(),
  /** In-scope failures only: named with evidence, or kept for review (absent = named, old caches). */
  status: LabelStatus.optional(),
  /** Every claim's cited evidence (events, verifier lines, siblings, result records). */
  evidence: z.array(LabelEvidence).optional(),
  /**
   * An excluded failure that a runtime rule could still have addressed (a truncated final
   * response that left the deliverable missing): the exclusion stands, this reading stays visible.
   */
  secondReading: z
    .strictObject({
      kind: InScopeKind,
      mechanismId: z.string(),
      interventionPoint: InterventionPoint,
      why: z.string().max(400),
    })
    .optional(),
});
export type Label = z.infer<typeof Label>;

/** Whether a label keeps its attempt in mining scope (named or for review). */
export function inScope(l: Label): boolean {
  return l.exclusion === "none" && !l.unlabelledReason;
}

/** Whether a label names its mechanism with evidence (old labels without a status did). */
export function isNamed(l: Label): boolean {
  return inScope(l) && l.status !== "needs_review" && (l.mechanismId ?? l.family) !== undefined;
}
