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
});
export type Label = z.infer<typeof Label>;
