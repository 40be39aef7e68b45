import { join } from "node:path";
import { UsageError } from "../errors.js";
import { workspacePaths } from "../workspace/paths.js";

/** Files of one screen under `<workspace>/screens/<name>/`. */
export interface ScreenPaths {
  dir: string;
  plan: string;
  results: string;
  /** Runner output: job directories per arm and replicate. */
  jobs: string;
  /** Runner state (finished cells), for resuming. */
  state: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** Throws a UsageError for names that are not a plain folder name. */
export function checkScreenName(name: string): string {
  if (!NAME.test(name) || name.includes("..")) {
    throw new UsageError(
      `screen name "${name}" must be letters, digits, '.', '_' or '-' (no slashes), at most 100 characters`,
    );
  }
  return name;
}

export function screenPaths(workspace: string, name: string): ScreenPaths {
  const dir = join(workspacePaths(workspace).screens, checkScreenName(name));
  return {
    dir,
    plan: join(dir, "plan.json"),
    results: join(dir, "results.jsonl"),
    jobs: join(dir, "jobs"),
    state: join(dir, "run-state.json"),
  };
}
