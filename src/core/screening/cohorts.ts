import type { Attempt } from "../model/attempt.js";
import { eligibilityOf } from "../policy/evaluator.js";
import type { CompiledPolicy } from "../policy/types.js";
import type { TaskText } from "../route/audit.js";
import type { PlanTask } from "./plan/schema.js";

/**
 * THE cohort definition, used by the editor preview, the replay screen (core/screening/replay/sets.ts)
 * and screen plans (select-tasks.ts):
 * - positive: a task of one of the candidates' lineage attempts (where the failure was seen);
 * - routed ("eligible"): a task whose text the candidate's compiled eligibility accepts;
 *   a routed task that is not positive is a nearby negative (same kind of task, failure not
 *   seen);
 * - silent: a task no candidate routes (no policy should fire there).
 * The replay screen screens a sample of these (see selectSets); the preview shows the same
 * sample, so both print the same numbers.
 */

/** The candidate routes the task: its eligibility holds for the (non-empty) task text. */
export function routesTask(policy: CompiledPolicy, text: string): boolean {
  return text !== "" && eligibilityOf(policy, text).eligible;
}

/** Tasks of the policies' lineage attempts that are in `attempts`. */
export function positiveTaskIds(
  policies: readonly CompiledPolicy[],
  attempts: readonly Attempt[],
): Set<string> {
  const lineage = new Set(policies.flatMap((p) => p.candidate.lineage.attempts));
  return new Set(attempts.filter((a) => lineage.has(a.id)).map((a) => a.taskId));
}

/**
 * Routes tasks into cohorts with the policies' own compiled eligibility: "eligible" when
 * any policy's eligibility holds for the task text (the matched phrase is kept), else
 * "silent" (a task on which no policy should fire).
 */
export function classifyTasks(
  tasks: readonly TaskText[],
  policies: readonly CompiledPolicy[],
): PlanTask[] {
  return tasks.map((t) => {
    for (const p of policies) {
      const e = eligibilityOf(p, t.text);
      if (e.eligible)
        return e.matched
          ? { id: t.taskId, cohort: "eligible", matched: e.matched }
          : { id: t.taskId, cohort: "eligible" };
    }
    return { id: t.taskId, cohort: "silent" };
  });
}

/**
 * Splits routed tasks for a focused screen: positive tasks stay "positive"; other eligible
 * tasks are "nearby-negative"; silent tasks stay silent.
 */
export function focusCohorts(
  routed: readonly PlanTask[],
  positiveTasks: ReadonlySet<string>,
): PlanTask[] {
  return routed.map((t) =>
    positiveTasks.has(t.id)
      ? { ...t, cohort: "positive" }
      : t.cohort === "eligible"
        ? { ...t, cohort: "nearby-negative" }
        : t,
  );
}
