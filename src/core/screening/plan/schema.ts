import { z } from "zod";
import { ArmName } from "../../model/arm.js";
import { Cohort } from "../../model/cohort.js";

export const PlanTask = z.strictObject({
  id: z.string().min(1),
  cohort: Cohort,
  /** The eligibility phrase that routed the task (eligible tasks). */
  matched: z.string().optional(),
});
export type PlanTask = z.infer<typeof PlanTask>;

export const PlanArm = z.strictObject({
  name: ArmName,
  /** Candidate files of this arm, relative to the screen dir (none for baseline). */
  files: z.array(z.string()),
  /** Candidate ids@version in the arm. */
  policies: z.array(z.string()),
  /** SHA-256 of the canonical JSON of the arm's candidates (sorted by id). */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type PlanArm = z.infer<typeof PlanArm>;

export const PlanCell = z.strictObject({
  /** `r<replicate>/<arm>/<task>`: unique, stable. */
  id: z.string(),
  replicate: z.number().int().positive(),
  /** Position of the arm within its replicate (randomised from the seed). */
  order: z.number().int().nonnegative(),
  arm: ArmName,
  task: z.string(),
});
export type PlanCell = z.infer<typeof PlanCell>;

/** How a provider failure before a fair attempt is replaced (fixed before any run). */
export const ReplacementRule = z.strictObject({
  rule: z.literal("keep-original-fair-else-first-fair-in-recovery-order"),
  /** Exception types counted as provider failures (not the agent's fault). */
  providerFailures: z.array(z.string()),
  maxReplacements: z.number().int().nonnegative(),
});

export const ScreenPlan = z.strictObject({
  version: z.literal(1),
  name: z.string(),
  createdAt: z.string(),
  seed: z.union([z.number().int(), z.string()]),
  attempts: z.number().int().positive(),
  source: z.strictObject({
    kind: z.enum(["portfolio", "candidate"]),
    /** Path as given (workspace-relative when inside it). */
    path: z.string(),
    /** SHA-256 of the source candidates at plan time (a later edit is refused). */
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
  }),
  tasks: z.array(PlanTask).min(1),
  arms: z.array(PlanArm).min(1),
  schedule: z.array(PlanCell),
  replacement: ReplacementRule,
  hashes: z.strictObject({
    tasks: z.string(),
    schedule: z.string(),
    /** Hash of every field above (the whole plan minus `hashes`). */
    plan: z.string(),
  }),
});
export type ScreenPlan = z.infer<typeof ScreenPlan>;
