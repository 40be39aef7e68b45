import type { Cohort } from "../../model/cohort.js";
import { readPlanIfAny } from "./plan-file.js";

/**
 * Task → cohort from the screen's plan, or undefined when the screen has no plan (results
 * imported directly). A plan that exists but does not validate is an error.
 */
export async function cohortLookup(
  workspace: string,
  name: string,
): Promise<((task: string) => Cohort | undefined) | undefined> {
  const plan = await readPlanIfAny(workspace, name);
  if (!plan) return undefined;
  const map = new Map(plan.tasks.map((t) => [t.id, t.cohort]));
  return (task) => map.get(task);
}
