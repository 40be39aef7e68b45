import { type ArmName, BASELINE_ARM, CONTROL_ARMS, POLICY_ARM } from "../model/arm.js";
import type { CohortOrAll } from "../model/cohort.js";
import type { Finding } from "../verdict/finding.js";
import type { VerdictsConfig } from "../verdict/thresholds.js";
import { type Contrast, type ContrastOptions, contrast } from "./contrast.js";
import { type Funnel, funnel } from "./funnel.js";
import { type ArmSummary, summarizeArm } from "./passk.js";
import { runFindings } from "./run-findings.js";
import { type TransitionTable, transitionTable } from "./transitions.js";
import { ALL_COHORT, type Observation } from "./types.js";

export interface UnscorableAttempt {
  task: string;
  arm: ArmName;
  attempt: number;
  reason: string;
}

export interface ScreenAnalysis {
  seed: string | number;
  cohorts: CohortOrAll[];
  /** arms[arm][cohort] (cohort "all" pools every task). */
  arms: Record<string, Record<string, ArmSummary>>;
  contrasts: Contrast[];
  funnel: Record<string, Funnel>;
  /** transitions[arm]: that arm against the baseline, over all tasks. */
  transitions: Record<string, TransitionTable>;
  unscorable: UnscorableAttempt[];
  /** What the evidence says about the policy arm, each finding with the verdict it argues for. */
  findings: Finding[];
}

/** Arm order: baseline, policy, the controls, then any other arm by name. */
export function orderArms(arms: Iterable<ArmName>): ArmName[] {
  const fixed: ArmName[] = [BASELINE_ARM, POLICY_ARM, ...CONTROL_ARMS];
  const rank = (a: ArmName): number => {
    const i = fixed.indexOf(a);
    return i === -1 ? fixed.length : i;
  };
  return [...new Set(arms)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** The (arm, comparator) pairs worth contrasting among the arms present. */
export function contrastPairs(arms: readonly ArmName[]): Array<[ArmName, ArmName]> {
  const pairs: Array<[ArmName, ArmName]> = [];
  if (arms.includes(BASELINE_ARM)) {
    for (const a of arms) if (a !== BASELINE_ARM) pairs.push([a, BASELINE_ARM]);
  }
  if (arms.includes(POLICY_ARM)) {
    for (const c of CONTROL_ARMS) if (arms.includes(c)) pairs.push([POLICY_ARM, c]);
  }
  return pairs;
}

/**
 * Every statistic of a screen from its observations: per-arm tables per cohort,
 * contrasts (per cohort and pooled), funnels, transition tables, unscorable attempts
 * and the verdicts this evidence supports. Pure and deterministic for a given seed.
 */
export function analyzeScreen(
  observations: readonly Observation[],
  opts: ContrastOptions & { thresholds?: VerdictsConfig } = {},
): ScreenAnalysis {
  const seed = opts.seed ?? 1;
  const arms = orderArms(observations.map((o) => o.arm));
  // Named cohorts (rows without one count only in the pooled "all").
  const named = [...new Set(observations.flatMap((o) => (o.cohort ? [o.cohort] : [])))].sort();
  const cohorts: CohortOrAll[] = [...named, ALL_COHORT];
  const select = (arm: ArmName, cohort: CohortOrAll): Observation[] =>
    observations.filter(
      (o) => o.arm === arm && (cohort === ALL_COHORT || (o.cohort ?? ALL_COHORT) === cohort),
    );

  const armTable: ScreenAnalysis["arms"] = {};
  for (const arm of arms) {
    armTable[arm] = {};
    for (const cohort of cohorts) {
      const obs = select(arm, cohort);
      if (obs.length)
        (armTable[arm] as Record<string, ArmSummary>)[cohort] = summarizeArm(arm, cohort, obs);
    }
  }

  const contrasts: Contrast[] = [];
  for (const [arm, comparator] of contrastPairs(arms)) {
    for (const cohort of cohorts) {
      const a = select(arm, cohort);
      const b = select(comparator, cohort);
      if (!a.length || !b.length) continue;
      const c = contrast(arm, comparator, cohort, a, b, {
        ...(opts.resamples ? { resamples: opts.resamples } : {}),
        ...(opts.flips ? { flips: opts.flips } : {}),
        seed: `${seed}:${arm}:${comparator}:${cohort}`,
      });
      if (c.nTasks > 0) contrasts.push(c);
    }
  }

  const funnels: ScreenAnalysis["funnel"] = {};
  for (const arm of arms) funnels[arm] = funnel(arm, select(arm, ALL_COHORT));

  const transitions: ScreenAnalysis["transitions"] = {};
  for (const c of contrasts) {
    if (c.comparator === BASELINE_ARM && c.cohort === ALL_COHORT) {
      transitions[c.arm] = transitionTable(c.arm, c.comparator, c.cohort, c.tasks);
    }
  }

  const unscorable = observations
    .filter((o) => o.unscorable)
    .map((o) => ({ task: o.task, arm: o.arm, attempt: o.attempt, reason: o.unscorable as string }));

  const partial = {
    seed,
    cohorts,
    arms: armTable,
    contrasts,
    funnel: funnels,
    transitions,
    unscorable,
  };
  return { ...partial, findings: runFindings(partial, observations, opts.thresholds) };
}
