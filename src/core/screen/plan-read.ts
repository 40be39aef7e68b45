import { readFile } from "node:fs/promises";
import { screenPaths } from "./paths.js";

/**
 * Task → cohort from the screen's plan (`plan.json` `tasks: [{id, cohort}]`), or
 * undefined when the screen has no plan yet.
 */
export async function cohortLookup(
  workspace: string,
  name: string,
): Promise<((task: string) => string | undefined) | undefined> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(screenPaths(workspace, name).plan, "utf8"));
  } catch {
    return undefined;
  }
  const tasks = (raw as { tasks?: unknown }).tasks;
  if (!Array.isArray(tasks)) return undefined;
  const map = new Map<string, string>();
  for (const t of tasks) {
    if (t && typeof t.id === "string" && typeof t.cohort === "string") map.set(t.id, t.cohort);
  }
  return (task) => map.get(task);
}
