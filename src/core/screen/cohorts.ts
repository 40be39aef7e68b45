import { eligibilityOf } from "../policy/evaluator.js";
import type { CompiledPolicy } from "../policy/types.js";
import type { PlanTask } from "./plan-schema.js";

/**
 * Routes tasks into cohorts with the policies' own compiled eligibility: "eligible" when
 * any policy's eligibility holds for the task text (the matched phrase is kept), else
 * "silent" (a task on which no policy should fire).
 */
export function classifyTasks(
  tasks: ReadonlyArray<{ id: string; text: string }>,
  policies: readonly CompiledPolicy[],
): PlanTask[] {
  return tasks.map((t) => {
    for (const p of policies) {
      const e = eligibilityOf(p, t.text);
      if (e.eligible)
        return e.matched
          ? { id: t.id, cohort: "eligible", matched: e.matched }
          : { id: t.id, cohort: "eligible" };
    }
    return { id: t.id, cohort: "silent" };
  });
}

/** Unique task texts from attempts (first text seen per task id), sorted by id. */
export function taskTexts(
  attempts: ReadonlyArray<{ taskId: string; taskText: string }>,
): Array<{ id: string; text: string }> {
  const m = new Map<string, string>();
  for (const a of attempts) if (!m.has(a.taskId) || !m.get(a.taskId)) m.set(a.taskId, a.taskText);
  return [...m.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([id, text]) => ({ id, text }));
}

/**
 * Splits routed tasks for a focused screen: tasks of the candidates' lineage attempts (where
 * the failure was seen) are "positive"; other eligible tasks are "nearby-negative" (same
 * kind of task, failure not seen); silent tasks stay silent.
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
