import type { ArmName } from "../model/arm.js";
import type { Cohort, CohortOrAll } from "../model/cohort.js";

export { ALL_COHORT } from "../model/cohort.js";

/**
 * One scored attempt as the statistics see it: the task is the unit, the attempt a
 * Bernoulli observation Y_ij ∈ {0,1} under an arm. Optional funnel markers are
 * booleans coded identically in every arm.
 */
export interface Observation {
  task: string;
  arm: ArmName;
  attempt: number;
  pass: boolean;
  cohort?: Cohort;
  cost?: number;
  durationS?: number;
  /** Risky runtime state observed (the registered chain's X). */
  risky?: boolean;
  /** The intervention fired (A). */
  fired?: boolean;
  /** The registered behaviour marker held (B). */
  behavior?: boolean;
  /** Flagged by integrity checks: excluded from every statistic. */
  unscorable?: string;
}

/** Successes and attempts of one task under one arm. */
export interface TaskCount {
  task: string;
  cohort: CohortOrAll;
  n: number;
  successes: number;
}
