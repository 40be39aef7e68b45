import { z } from "zod";

/** The verdict kinds, most severe first: when screens disagree, the first one found wins. */
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
});
export type VerdictsConfig = z.infer<typeof VerdictsConfig>;

/** The defaults of every threshold (what an empty `verdicts` section means). */
export const DEFAULT_THRESHOLDS: VerdictsConfig = VerdictsConfig.parse({});
