import type { Attempt } from "../../model/attempt.js";
import { replayAttempt } from "../../policy/replay.js";
import type { Candidate } from "../../policy/schema.js";
import type { CompiledPolicy } from "../../policy/types.js";
import type { Verdict } from "../../verdict/finding.js";
import { replayVerdict } from "../../verdict/screen-verdict.js";
import type { VerdictsConfig } from "../../verdict/thresholds.js";
import { sha256Json } from "../canonical.js";
import { type NegativeKind, type ScreenSets, type ScreenSizes, selectSets } from "./sets.js";

/**
 * Replay screen (no agent run): the candidate replayed by the one evaluator over the stored
 * policy-free attempts of its positive and nearby-negative tasks.
 */

export interface PositiveRow {
  attemptId: string;
  taskId: string;
  fired: boolean;
  /** First firing: event index, rule, point. */
  first?: { eventIndex: number; ruleId: string; point: string };
  /** The label's pre-failure state (event index), when labelled. */
  preFailure?: number;
  /** The first firing is at or before the labelled pre-failure state. */
  precedesPreFailure?: boolean;
  /** The first firing is before the attempt's last agent action. */
  beforeLastAction: boolean;
  /** The first firing is at the stop (an instruct there forces another turn). */
  atStop: boolean;
  /** The agent could still act on it: before the pre-failure state or the last action, or at stop. */
  timely: boolean;
  behavior: boolean;
  /** Estimated tokens the firings added to this attempt. */
  addedTokens: number;
}

export interface NegativeRow {
  taskId: string;
  kind: NegativeKind;
  similarity?: number;
  eligible: boolean;
  matched?: string;
  attempts: number;
  firedAttempts: number;
  behavior: number;
}

export interface RateOf {
  n: number;
  k: number;
  rate: number;
}

export interface ReplayScreen {
  kind: "fire-replay-screen";
  candidate: string;
  /** Hash of the candidate's mechanics when screened (a later edit makes the screen stale). */
  candidateSha256: string;
  family: string;
  createdAt: string;
  sizes: ScreenSizes;
  seed: string | number;
  sets: ScreenSets;
  positives: PositiveRow[];
  negatives: NegativeRow[];
  summary: {
    positiveFiring: RateOf;
    positiveTimely: RateOf;
    /** Negative tasks (all three kinds) with at least one firing. */
    negativeFiring: RateOf;
    silentRouting: RateOf;
    silentFiring: RateOf;
    /** Behaviour marker in the policy-free attempts: positives and negatives. */
    behaviorPositive: RateOf;
    behaviorNegative: RateOf;
    /** Estimated tokens per rule message (characters / 4, rounded up). */
    instructionTokens: Record<string, number>;
    meanAddedTokensPerPositive: number;
  };
  verdict: Verdict;
}

export const tokensOf = (s: string): number => Math.ceil(s.length / 4);
const rate = (k: number, n: number): RateOf => ({ n, k, rate: n === 0 ? 0 : k / n });

export interface ReplayScreenInput {
  policy: CompiledPolicy;
  others: readonly CompiledPolicy[];
  attempts: readonly Attempt[];
  preFailure: ReadonlyMap<string, number>;
  sizes: ScreenSizes;
  seed: string | number;
  thresholds: VerdictsConfig;
  now: Date;
  signal?: AbortSignal;
}

/** The attempts behind one negative row (kept out of the saved screen: rows keep counts). */
export interface NegativeAttempts {
  taskId: string;
  kind: NegativeKind;
  attemptIds: string[];
  firedIds: string[];
}

/** What a replay screen measures, without its verdict and record fields. */
export type ScreenMeasures = Pick<ReplayScreen, "sets" | "positives" | "negatives" | "summary"> & {
  negativeAttempts: NegativeAttempts[];
};

/**
 * Replays the candidate over its screen sets and sums up: the numbers the replay screen
 * saves and the editor preview shows (one computation, so both say the same).
 */
export function measureScreen(
  input: Omit<ReplayScreenInput, "thresholds" | "now">,
): ScreenMeasures {
  const { policy, attempts } = input;
  const sets = selectSets(policy, input.others, attempts, input.sizes, input.seed);
  const tokens: Record<string, number> = {};
  for (const r of policy.candidate.rules) tokens[r.id] = tokensOf(r.message);
  const byId = new Map(attempts.map((a) => [a.id, a]));

  const positives: PositiveRow[] = [];
  for (const id of sets.positiveAttempts) {
    input.signal?.throwIfAborted();
    const a = byId.get(id)!;
    const r = replayAttempt([policy], a);
    const f = r.firings[0];
    const pre = input.preFailure.get(id);
    const stopIdx = r.syntheticStop ? a.events.length : undefined;
    const atStop = f !== undefined && (f.point === "stop" || f.eventIndex === stopIdx);
    const precedes = f !== undefined && pre !== undefined ? f.eventIndex <= pre : undefined;
    positives.push({
      attemptId: id,
      taskId: a.taskId,
      fired: f !== undefined,
      ...(f ? { first: { eventIndex: f.eventIndex, ruleId: f.ruleId, point: f.point } } : {}),
      ...(pre === undefined ? {} : { preFailure: pre }),
      ...(precedes === undefined ? {} : { precedesPreFailure: precedes }),
      beforeLastAction: f?.beforeLastAction ?? false,
      atStop,
      timely: f !== undefined && (f.beforeLastAction || atStop || precedes === true),
      behavior: r.policies[0]?.behavior ?? false,
      addedTokens: r.firings.reduce((s, x) => s + (tokens[x.ruleId] ?? tokensOf(x.message)), 0),
    });
  }

  const negatives: NegativeRow[] = [];
  const negativeAttempts: NegativeAttempts[] = [];
  for (const n of sets.negatives) {
    input.signal?.throwIfAborted();
    const list = attempts.filter((a) => a.taskId === n.taskId && a.arm === "baseline");
    let eligible = false;
    let matched: string | undefined;
    const firedIds: string[] = [];
    let behavior = 0;
    for (const a of list) {
      const r = replayAttempt([policy], a);
      const o = r.policies[0];
      if (o?.eligible) {
        eligible = true;
        matched ??= o.matched;
      }
      if (r.firings.length > 0) firedIds.push(a.id);
      if (o?.behavior) behavior++;
    }
    negatives.push({
      taskId: n.taskId,
      kind: n.kind,
      ...(n.similarity === undefined ? {} : { similarity: n.similarity }),
      eligible,
      ...(matched === undefined ? {} : { matched }),
      attempts: list.length,
      firedAttempts: firedIds.length,
      behavior,
    });
    negativeAttempts.push({
      taskId: n.taskId,
      kind: n.kind,
      attemptIds: list.map((a) => a.id),
      firedIds,
    });
  }

  const silent = negatives.filter((n) => n.kind === "silent");
  const summary: ReplayScreen["summary"] = {
    positiveFiring: rate(positives.filter((p) => p.fired).length, positives.length),
    positiveTimely: rate(positives.filter((p) => p.timely).length, positives.length),
    negativeFiring: rate(negatives.filter((n) => n.firedAttempts > 0).length, negatives.length),
    silentRouting: rate(silent.filter((n) => n.eligible).length, silent.length),
    silentFiring: rate(silent.filter((n) => n.firedAttempts > 0).length, silent.length),
    behaviorPositive: rate(positives.filter((p) => p.behavior).length, positives.length),
    behaviorNegative: rate(
      negatives.reduce((s, n) => s + n.behavior, 0),
      negatives.reduce((s, n) => s + n.attempts, 0),
    ),
    instructionTokens: tokens,
    meanAddedTokensPerPositive:
      positives.length === 0
        ? 0
        : Number((positives.reduce((s, p) => s + p.addedTokens, 0) / positives.length).toFixed(1)),
  };
  return { sets, positives, negatives, summary, negativeAttempts };
}

export function runReplayScreen(input: ReplayScreenInput): ReplayScreen {
  const { policy } = input;
  const { sets, positives, negatives, summary } = measureScreen(input);
  return {
    kind: "fire-replay-screen",
    candidate: policy.key,
    candidateSha256: mechanicsHash(policy.candidate),
    family: policy.family,
    createdAt: input.now.toISOString(),
    sizes: input.sizes,
    seed: input.seed,
    sets,
    positives,
    negatives,
    summary,
    verdict: replayVerdict(summary, input.thresholds),
  };
}

/** SHA-256 of what a screen tests: the candidate without its status, history and notes. */
export function mechanicsHash(c: Candidate): string {
  const { status: _s, history: _h, notes: _n, ...rest } = c;
  return sha256Json(rest);
}
