import { testsOf, type VerifierTest } from "../../ingest/verifier-tests.js";
import type { Attempt } from "../../model/attempt.js";
import { endedByHarness, isTimeout } from "./paths.js";

/**
 * Whether the verifier's report says which tests define the change (`target`) and which guard
 * the rest (`regression`): such a grader is read through those roles (a failing target test
 * is the change itself failing, a failing regression test is regression-unchecked's reading).
 */
export function hasTestRoles(a: Attempt): boolean {
  return testsOf(a).some((t) => t.role !== undefined);
}

/**
 * The tests of a failed attempt that the agent chose to stop (no time limit, no harness end)
 * and whose grader passed part of the deliverable (a passing test, or a partial reward), read
 * without target/regression roles; undefined otherwise.
 */
export function partlyGraded(a: Attempt): VerifierTest[] | undefined {
  if (a.outcome === "pass" || isTimeout(a) || endedByHarness(a)) return undefined;
  if (hasTestRoles(a)) return undefined;
  const tests = testsOf(a);
  const partly =
    tests.some((t) => t.status === "passed") ||
    (typeof a.reward === "number" && a.reward > 0 && a.reward < 1);
  return partly ? tests : undefined;
}
