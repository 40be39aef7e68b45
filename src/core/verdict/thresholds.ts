import { z } from "zod";

/**
 * The verdict kinds, most severe first: when findings disagree, the first one found wins
 * (foldVerdict in finding.ts, the one fold).
 */
export const VERDICT_KINDS = [
  "harmful",
  "over-broad",
  "inert",
  "promising",
  "inconclusive",
] as const;
export const VerdictKind = z.enum(VERDICT_KINDS);
export type VerdictKind = z.infer<typeof VerdictKind>;

/**
 * Thresholds that turn screen results into inert / over-broad / harmful verdicts: the
 * `verdicts` section of fire.config.json and the one source of their defaults.
 */
export const VerdictsConfig = z.strictObject({
  /** Below this firing rate on positive tasks a candidate is inert. */
  inertMinFiringRate: z.number().min(0).max(1).default(0.5),
  /** Above this firing rate on nearby-negative (or silent) tasks a candidate is over-broad. */
  overBroadMaxNegativeRate: z.number().min(0).max(1).default(0.25),
  /** More pass→fail task transitions than this make a candidate harmful. */
  harmfulMaxPassToFail: z.number().int().nonnegative().default(0),
  /** An effect (or its absence) is judged from a bootstrap interval over at least this many tasks. */
  effectMinTasks: z.number().int().min(1).default(2),
  /** A candidate is promising only when its effect over baseline has a sign-flip p at most this. */
  promisingMaxP: z.number().min(0).max(1).default(0.1),
});
export type VerdictsConfig = z.infer<typeof VerdictsConfig>;

/** The defaults of every threshold (what an empty `verdicts` section means). */
export const DEFAULT_THRESHOLDS: VerdictsConfig = VerdictsConfig.parse({});
