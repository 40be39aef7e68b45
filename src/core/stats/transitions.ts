import type { ArmName } from "../model/arm.js";
import type { CohortOrAll } from "../model/cohort.js";
import type { TaskMovement } from "./contrast.js";

/**
 * Tasks by comparator successes (rows) × arm successes (columns). `k` is the largest
 * attempt count seen, so rows/columns run 0..k.
 */
export interface TransitionTable {
  arm: ArmName;
  comparator: ArmName;
  cohort: CohortOrAll;
  k: number;
  /** counts[row = comparator successes][col = arm successes] = number of tasks. */
  counts: number[][];
  passToFail: string[];
  failToPass: string[];
}

export function transitionTable(
  arm: ArmName,
  comparator: ArmName,
  cohort: CohortOrAll,
  tasks: readonly TaskMovement[],
): TransitionTable {
  const k = Math.max(0, ...tasks.flatMap((t) => [t.arm.n, t.comparator.n]));
  const counts = Array.from({ length: k + 1 }, () => new Array<number>(k + 1).fill(0));
  for (const t of tasks) {
    const row = counts[t.comparator.successes] as number[];
    row[t.arm.successes] = (row[t.arm.successes] ?? 0) + 1;
  }
  return {
    arm,
    comparator,
    cohort,
    k,
    counts,
    passToFail: tasks.filter((t) => t.passToFail).map((t) => t.task),
    failToPass: tasks.filter((t) => t.failToPass).map((t) => t.task),
  };
}
