import { z } from "zod";

/**
 * THE cohorts a screened task belongs to (core/screen/cohorts.ts says how a task is put in one):
 * - positive: a task of the candidate's lineage attempts (where the failure was seen);
 * - eligible: a task the candidate's eligibility routes (before positives are split off);
 * - nearby-negative: an eligible task that is not positive;
 * - silent: a task no candidate routes (no policy should fire there);
 * - unrouted: a listed task the workspace does not know, so it could not be routed.
 * Plans, task lists, results rows, observations and the verdict all use this one enum.
 */
export const COHORTS = ["positive", "eligible", "nearby-negative", "silent", "unrouted"] as const;
export const Cohort = z.enum(COHORTS);
export type Cohort = z.infer<typeof Cohort>;

/** Cohorts where the policy is meant to act. */
export const POSITIVE_COHORTS: readonly Cohort[] = ["eligible", "positive"];
/** Cohorts where the policy should not help (nor fire, for silent tasks). */
export const NEGATIVE_COHORTS: readonly Cohort[] = ["silent", "nearby-negative"];

/** The pooled analysis over every task (not a cohort a task belongs to). */
export const ALL_COHORT = "all";
/** A cohort of the analysis: one cohort, or every task pooled. */
export type CohortOrAll = Cohort | typeof ALL_COHORT;

/** The cohort is one where the policy is meant to act (never the pooled "all"). */
export const isPositiveCohort = (c: CohortOrAll | undefined): boolean =>
  (POSITIVE_COHORTS as readonly string[]).includes(c ?? "");
/** The cohort is one where the policy should not act (never the pooled "all"). */
export const isNegativeCohort = (c: CohortOrAll | undefined): boolean =>
  (NEGATIVE_COHORTS as readonly string[]).includes(c ?? "");
