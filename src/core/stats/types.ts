/**
 * One scored attempt as the statistics see it: the task is the unit, the attempt a
 * Bernoulli observation Y_ij ∈ {0,1} under an arm. Optional funnel markers are
 * booleans coded identically in every arm.
 */
export interface Observation {
  task: string;
  arm: string;
  attempt: number;
  pass: boolean;
  cohort?: string;
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
  cohort: string;
  n: number;
  successes: number;
}

/** Cohort label used for the pooled analysis over every task. */
export const ALL_COHORT = "all";
