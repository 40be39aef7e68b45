import { z } from "zod";
import { ALL_COHORT, Cohort } from "../model/cohort.js";
import { VERDICT_KINDS, VerdictKind } from "./thresholds.js";

const RateOf = z.object({ k: z.number(), n: z.number(), rate: z.number() });
/** k of n, and k / n (0 when n is 0). */
export type RateOf = z.infer<typeof RateOf>;
const KofN = z.object({ k: z.number(), n: z.number() });

const Effect = z.object({
  cohort: z.union([Cohort, z.literal(ALL_COHORT)]),
  delta: z.number(),
  ci: z.tuple([z.number(), z.number()]),
  p: z.number(),
  nTasks: z.number(),
});
/** An effect of the policy arm over a comparator on one cohort (a contrast, in brief). */
export type Effect = z.infer<typeof Effect>;

const base = { verdict: VerdictKind.optional(), screen: z.string().optional() };
const f = <C extends string, S extends z.ZodRawShape>(code: C, shape: S) =>
  z.object({ code: z.literal(code), ...base, ...shape });

/**
 * One thing a screen measured, as data: what (`code` and its numbers), the threshold it was
 * held to, and the verdict it argues for (`verdict`; none for a measure kept for context).
 * `screen` names the screen it came from once findings of several screens are pooled
 * ("replay" or a run screen's name). Words for people come only from prose.ts. Saved in
 * replay screens, so it has a schema.
 */
export const Finding = z.discriminatedUnion("code", [
  /** Replay: the workspace holds no attempt of the candidate's lineage. */
  f("no-positive-attempt", {}),
  /** Replay: positive attempts where it fires before the failure point (and at all). */
  f("positive-timely", { timely: RateOf, firedAtAll: z.number(), min: z.number() }),
  /** Replay: nearby-negative tasks where it fires. */
  f("negative-firing", { tasks: RateOf, max: z.number() }),
  /** Replay: silent tasks its eligibility routes. */
  f("silent-routing", { tasks: RateOf, max: z.number() }),
  /** Replay: the behaviour marker in policy-free attempts (context). */
  f("behaviour-marker", { positive: KofN, negative: KofN }),
  /** Run: tasks that passed under baseline and never under the policy. */
  f("pass-to-fail", {
    tasks: z.array(z.object({ task: z.string(), cohort: Effect.shape.cohort })),
    max: z.number(),
  }),
  /** Run: an interval below 0 over enough tasks. */
  f("negative-effect", { effect: Effect, minTasks: z.number() }),
  /** Run: a negative point estimate on a cohort where the policy should act. */
  f("negative-point-estimate", { effect: Effect }),
  /** Run: policy attempts on negative / silent tasks where it fired. */
  f("run-negative-firing", { rate: z.number(), n: z.number(), max: z.number() }),
  /** Run: policy attempts on positive tasks where it fired. */
  f("run-positive-firing", { rate: z.number(), n: z.number(), min: z.number() }),
  /** Run: the behaviour marker is no more frequent under the policy than under baseline. */
  f("marker-not-above-baseline", { policy: z.number(), baseline: z.number() }),
  /** Run: the effect over baseline (and the sham) on the target cohort. */
  f("baseline-effect", { effect: Effect, vsSham: Effect.optional(), maxP: z.number() }),
  /** Run: the screen's results support no verdict. */
  f("no-run-verdict", {}),
  /** Pooled: the replay screen is of an older version of the candidate's mechanics. */
  f("stale-replay", {}),
  /** Pooled: no screen of the candidate yet. */
  f("not-screened", {}),
  /** A finding saved by an older fire as text only (its screen predates findings). */
  f("recorded", { text: z.string() }),
]);
export type Finding = z.infer<typeof Finding>;

export type FindingCode = Finding["code"];

/** A verdict and the findings behind it (the user decides). */
export interface Verdict {
  verdict: VerdictKind;
  findings: Finding[];
}

/**
 * THE fold: the most severe verdict any finding argues for (VERDICT_KINDS order: harmful,
 * over-broad, inert, promising, inconclusive); inconclusive when none argues for one. Every
 * verdict — a replay screen's, a run screen's, a candidate's over all its screens, and the
 * freeze gate — is this fold over findings.
 */
export function foldVerdict(findings: readonly Finding[]): VerdictKind {
  return VERDICT_KINDS.find((v) => findings.some((f) => f.verdict === v)) ?? "inconclusive";
}

/** The findings that decided a folded verdict (those arguing for it). */
export function deciding(v: Verdict): Finding[] {
  return v.findings.filter((f) => f.verdict === v.verdict);
}

/** A verdict from findings: the fold, with the findings kept. */
export function verdictOf(findings: Finding[]): Verdict {
  return { verdict: foldVerdict(findings), findings };
}
