import type { ArmName } from "../model/arm.js";
import type { CohortOrAll } from "../model/cohort.js";
import { bootstrapMeanInterval } from "./bootstrap.js";
import { taskCounts } from "./passk.js";
import { signFlipTest } from "./signflip.js";
import type { Observation, TaskCount } from "./types.js";

/** One task's movement between a comparator arm and an arm. */
export interface TaskMovement {
  task: string;
  cohort: CohortOrAll;
  comparator: { n: number; successes: number };
  arm: { n: number; successes: number };
  /** Attempt mean under the arm minus attempt mean under the comparator. */
  diff: number;
  /** Passed at least once under the comparator, never under the arm. */
  passToFail: boolean;
  /** Never passed under the comparator, at least once under the arm. */
  failToPass: boolean;
}

export interface Contrast {
  arm: ArmName;
  comparator: ArmName;
  cohort: CohortOrAll;
  /** Tasks observed under both arms (the paired unit). */
  nTasks: number;
  delta: number;
  ci: [number, number];
  p: number;
  test: "exact" | "random";
  /** Tasks seen under only one of the two arms (left out of the pairing). */
  unpaired: string[];
  tasks: TaskMovement[];
}

export interface ContrastOptions {
  seed?: string | number;
  resamples?: number;
  flips?: number;
}

/** Pairs per-task counts of two arms by task id. */
export function pairTasks(
  armObs: readonly Observation[],
  comparatorObs: readonly Observation[],
): { pairs: Array<[TaskCount, TaskCount]>; unpaired: string[] } {
  const a = new Map(taskCounts(armObs).map((t) => [t.task, t]));
  const b = new Map(taskCounts(comparatorObs).map((t) => [t.task, t]));
  const pairs: Array<[TaskCount, TaskCount]> = [];
  const unpaired: string[] = [];
  for (const [task, ta] of a) {
    const tb = b.get(task);
    if (tb) pairs.push([ta, tb]);
    else unpaired.push(task);
  }
  for (const task of b.keys()) if (!a.has(task)) unpaired.push(task);
  return { pairs, unpaired: unpaired.sort() };
}

/**
 * The effect of `arm` against `comparator`: mean over paired tasks of the per-task
 * difference of attempt means, its task-level bootstrap interval and the paired
 * sign-flip p. Deterministic for a given seed.
 */
export function contrast(
  arm: ArmName,
  comparator: ArmName,
  cohort: CohortOrAll,
  armObs: readonly Observation[],
  comparatorObs: readonly Observation[],
  opts: ContrastOptions = {},
): Contrast {
  const { pairs, unpaired } = pairTasks(armObs, comparatorObs);
  const tasks: TaskMovement[] = pairs.map(([ta, tb]) => ({
    task: ta.task,
    cohort: ta.cohort,
    comparator: { n: tb.n, successes: tb.successes },
    arm: { n: ta.n, successes: ta.successes },
    diff: ta.successes / ta.n - tb.successes / tb.n,
    passToFail: tb.successes > 0 && ta.successes === 0,
    failToPass: tb.successes === 0 && ta.successes > 0,
  }));
  const diffs = tasks.map((t) => t.diff);
  const delta = diffs.length ? diffs.reduce((s, x) => s + x, 0) / diffs.length : Number.NaN;
  const seed = opts.seed ?? 1;
  const ci = bootstrapMeanInterval(diffs, { seed, resamples: opts.resamples });
  const test = signFlipTest(diffs, { seed, flips: opts.flips });
  return {
    arm,
    comparator,
    cohort,
    nTasks: tasks.length,
    delta,
    ci,
    p: diffs.length ? test.p : Number.NaN,
    test: test.method,
    unpaired,
    tasks,
  };
}
