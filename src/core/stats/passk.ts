import type { ArmName } from "../model/arm.js";
import type { CohortOrAll } from "../model/cohort.js";
import { ALL_COHORT, type Observation, type TaskCount } from "./types.js";

/** C(n, k) as a float (small n only: attempts per task). */
function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

/**
 * Unbiased pass@k for one task with n attempts and c successes: the chance that k
 * attempts drawn without replacement contain a success. With n = k this is 1 when c ≥ 1.
 */
export function taskPassAtK(n: number, c: number, k: number): number {
  if (k > n || n === 0) return Number.NaN;
  return 1 - choose(n - c, k) / choose(n, k);
}

/** Unbiased pass^k for one task: the chance that k attempts drawn are all successes. */
export function taskPassHatK(n: number, c: number, k: number): number {
  if (k > n || n === 0) return Number.NaN;
  return choose(c, k) / choose(n, k);
}

/** Groups scorable observations into per-task counts (first cohort seen wins). */
export function taskCounts(obs: readonly Observation[]): TaskCount[] {
  const byTask = new Map<string, TaskCount>();
  for (const o of obs) {
    if (o.unscorable) continue;
    let t = byTask.get(o.task);
    if (!t) {
      t = { task: o.task, cohort: o.cohort ?? ALL_COHORT, n: 0, successes: 0 };
      byTask.set(o.task, t);
    }
    t.n += 1;
    if (o.pass) t.successes += 1;
  }
  return [...byTask.values()].sort((a, b) => a.task.localeCompare(b.task));
}

export interface ArmSummary {
  arm: ArmName;
  cohort: CohortOrAll;
  tasks: number;
  attempts: number;
  /** k used for pass@k / pass^k: the fewest attempts any task has. */
  k: number;
  /** Mean over tasks of the task's attempt success rate. */
  passAt1: number;
  passAtK: number;
  passHatK: number;
  /** Total cost over attempts that report one (null when none do). */
  costUsd: number | null;
  /** Mean agent time per attempt in seconds (null when none reports it). */
  meanDurationS: number | null;
  unscorable: number;
}

const mean = (xs: readonly number[]): number =>
  xs.length === 0 ? Number.NaN : xs.reduce((s, x) => s + x, 0) / xs.length;

/** Per-arm statistics over the given observations (already filtered to one arm and cohort). */
export function summarizeArm(
  arm: ArmName,
  cohort: CohortOrAll,
  obs: readonly Observation[],
): ArmSummary {
  const counts = taskCounts(obs);
  const k = counts.length ? Math.min(...counts.map((c) => c.n)) : 0;
  const scorable = obs.filter((o) => !o.unscorable);
  const costs = scorable.flatMap((o) => (o.cost === undefined ? [] : [o.cost]));
  const times = scorable.flatMap((o) => (o.durationS === undefined ? [] : [o.durationS]));
  return {
    arm,
    cohort,
    tasks: counts.length,
    attempts: scorable.length,
    k,
    passAt1: mean(counts.map((c) => c.successes / c.n)),
    passAtK: mean(counts.map((c) => taskPassAtK(c.n, c.successes, k))),
    passHatK: mean(counts.map((c) => taskPassHatK(c.n, c.successes, k))),
    costUsd: costs.length ? costs.reduce((s, x) => s + x, 0) : null,
    meanDurationS: times.length ? mean(times) : null,
    unscorable: obs.length - scorable.length,
  };
}
