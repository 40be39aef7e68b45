import { existsSync } from "node:fs";
import { screenPaths } from "../paths.js";
import { readPlan } from "./plan-file.js";

/**
 * Task → cohort from the screen's plan, or undefined when the screen has no plan (results
 * imported directly). A plan that exists but does not validate is an error.
 */
export async function cohortLookup(
  workspace: string,
  name: string,
): Promise<((task: string) => string | undefined) | undefined> {
  if (!existsSync(screenPaths(workspace, name).plan)) return undefined;
  const plan = await readPlan(workspace, name);
  const map = new Map(plan.tasks.map((t) => [t.id, t.cohort]));
  return (task) => map.get(task);
}
