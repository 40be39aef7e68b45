import type { Attempt } from "../../model/attempt.js";
import type { Cohort } from "../../model/cohort.js";
import type { CompiledPolicy } from "../../policy/types.js";
import { taskTexts } from "../../route/audit.js";
import { classifyTasks, focusCohorts, positiveTaskIds } from "../cohorts.js";
import type { PlanTask } from "./schema.js";
import type { ListedTask } from "./task-list.js";

export interface SelectTasksInput {
  /** The policy arm's policies (their eligibility routes tasks; their lineage names positives). */
  policies: readonly CompiledPolicy[];
  /** A task list (`--tasks`): listed cohorts are kept, the others routed. */
  listed?: readonly ListedTask[];
  /** Cohorts to take from the workspace's tasks (`--cohort`), when there is no task list. */
  cohorts: readonly Cohort[];
  /** The workspace's attempts, loaded only when a task must be routed. */
  attempts: () => Promise<readonly Attempt[]>;
}

/**
 * The tasks of a screen plan: a task list as given (tasks without a cohort routed by the
 * policies' eligibility, or "unrouted" when the workspace does not know them), or the
 * workspace's tasks of the wanted cohorts. Asking for "positive" or "nearby-negative" splits
 * eligible tasks by whether the policies' lineage attempts came from them.
 */
export async function selectPlanTasks(input: SelectTasksInput): Promise<PlanTask[]> {
  const routed = async (): Promise<Map<string, PlanTask>> => {
    const attempts = await input.attempts();
    let tasks = classifyTasks(taskTexts(attempts), input.policies);
    if (input.cohorts.includes("positive") || input.cohorts.includes("nearby-negative")) {
      tasks = focusCohorts(tasks, positiveTaskIds(input.policies, attempts));
    }
    return new Map(tasks.map((t) => [t.id, t]));
  };
  if (input.listed) {
    const route = input.listed.some((t) => !t.cohort)
      ? await routed()
      : new Map<string, PlanTask>();
    return input.listed.map((t) =>
      t.cohort
        ? { id: t.id, cohort: t.cohort }
        : (route.get(t.id) ?? { id: t.id, cohort: "unrouted" }),
    );
  }
  const wanted = new Set(input.cohorts);
  return [...(await routed()).values()].filter((t) => wanted.has(t.cohort));
}
