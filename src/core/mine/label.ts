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
 * of the verifier's output, a passing sibling, the trial's result record, or the role the
 * task text gives (what a task-gated detector required).
 */
export const LabelEvidence = z.strictObject({
  claim: z.enum(["capability", "state", "mechanism", "fault", "addressable"]),
  from: z.enum(["event", "verifier", "sibling", "result", "task"]),
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
  /**
   * Needs-review labels: the mechanisms the evidence points at and how strong it is for
   * each (below the naming threshold), strongest first. Never a named mechanism.
   */
  suspected: z
    .array(z.strictObject({ mechanismId: z.string(), strength: z.number().int() }))
    .max(5)
    .optional(),
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

/**
 * What puts a failed attempt in scope or out of it: one definition for every labeller. The
 * LLM labeller's system prompt quotes this text; the heuristic labeller decides by the same
 * rules from detector evidence. Agent-, task- and benchmark-neutral on purpose.
 */
export const SCOPE_DEFINITIONS: readonly string[] = [
  "In scope (exclusion none) is every failure a runtime rule could have addressed, of one of two kinds:",
  "- procedural_loss: capability is evidenced (a passing sibling attempt of the same task, or a working intermediate result in this attempt: a check that passed, output that matched, a deliverable that was right before it was changed) and an observable state preceded the loss (stopped without checking, destroyed or overwrote a working result, mutated its evidence, let a service die with the session).",
  "- policy_addressable: no capability evidence, but an observable state where a bounded instruction or denial could have changed the outcome: no deliverable written before the deadline or the stop; the same failing call repeated without a change of approach; a stop right after announcing a write that never happened; the deliverable written to another path than the one the task or verifier names; an available check never run before stopping; a model response that used up the output-token limit the harness itself requested (stop reason length at that limit) and so ended the run with nothing delivered. Capability evidence is NOT required for this kind.",
  "Out of scope (the exclusion):",
  "- provider_fault: the model provider or harness failed the agent (API error, a final response cut or left empty before any limit the request set — cut mid-stream, or empty with no usage reported —, rate limit in the last turn, agent process killed, trial never started, a tool or credential the task needs absent from the environment).",
  "- verifier_fault: the grader is wrong or broken (test script died before any test ran, judge output unparseable, a correct deliverable scored 0).",
  "- capability_gap: only what no runtime rule could address: the agent worked to a finished deliverable, checked it, with no stall, loop, missing deliverable or skipped check, and it is wrong because the task is beyond it. Missing capability evidence alone is not a capability gap.",
  "- no_intervention_point: no observable state existed where a rule could have acted.",
  "A fault that left the deliverable missing may still be addressable (a stop with no deliverable): keep the exclusion and give that second reading.",
];

/**
 * When a label may name its mechanism (quoted by the LLM prompt, applied to every labeller):
 * each claim cites what shows it, else the failure stays in scope as needs_review.
 */
export const STATUS_DEFINITION =
  "status named only when every claim cites what shows it (an event index, a verifier line quoted exactly, or a passing sibling); otherwise needs_review: keep it in scope, mechanismId null, and say in the rationale what evidence is missing. Never guess a mechanism.";

/**
 * Version of the LLM labeller's request and answer (its prompt, digest and answer schema).
 * Part of the LLM answer cache key and of the label store key, so stored LLM labels are
 * recomputed when it changes (`fire clusters` reads the store without loading the labeller).
 * Bump it with every change to what the prompt shows (src/llm/digest.ts, prompt.ts): @4, the
 * offered tools and whether any runs code; @5, evidence cited from the run's record and the
 * scope line on a response cut at the output limit the request set.
 */
export const LLM_LABEL_VERSION = "label-answer@5";

/**
 * Version of the checks that turn a valid LLM answer into a label (src/llm/label.ts: found
 * evidence, known id, confidence). Part of the label store key only, not of the answer cache
 * or recordings: a change re-derives stored labels from the same answers, asking nothing again.
 */
export const LLM_LABEL_RULES = "answer-checks@2";

/**
 * What a needs-review entry shows first, the same in `fire mine` and the workbench: its
 * strongest suspected mechanism, and the evidence to read first (the first claim that is
 * not capability — what is suspected, not that a sibling passed — else the first).
 */
export function reviewGist(l: Label | undefined): {
  suspect?: { mechanismId: string; strength: number };
  evidence?: LabelEvidence;
} {
  const suspect = [...(l?.suspected ?? [])].sort((a, b) => b.strength - a.strength)[0];
  const evidence = l?.evidence?.find((e) => e.claim !== "capability") ?? l?.evidence?.[0];
  return { ...(suspect ? { suspect } : {}), ...(evidence ? { evidence } : {}) };
}
