import { existsSync } from "node:fs";
import { join } from "node:path";
import { ConflictError, InvalidFieldError } from "../errors.js";
import { REPLAY_SCREENS_FOLDER, workspacePaths } from "../workspace/paths.js";

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

/** Throws a domain error for names that are not a plain folder name, or name the replay folder. */
export function checkScreenName(name: string): string {
  if (!NAME.test(name) || name.includes("..")) {
    throw new InvalidFieldError(
      "screen",
      `screen name "${name}"`,
      `must be letters, digits, '.', '_' or '-' (no slashes), at most 100 characters`,
    );
  }
  if (name === REPLAY_SCREENS_FOLDER) {
    throw new ConflictError(
      `screen name "${name}" is taken: screens/${REPLAY_SCREENS_FOLDER}/ holds the replay screens`,
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

const SCREEN_FILE = "screen.json";

/** `<id>-v<version>`: the name of one candidate identity's replay screen. */
export function replayScreenName(key: string): string {
  return checkScreenName(key.replace("@", "-v"));
}

/** `screens/replay/<id>-v<version>/screen.json`: where a replay screen is saved. */
export function replayScreenFile(workspace: string, key: string): string {
  return join(workspacePaths(workspace).replayScreens, replayScreenName(key), SCREEN_FILE);
}

/**
 * Where workspaces made before replay screens had their own folder kept them: beside the run
 * screens, as `screens/replay-<id>-v<version>/`. Read when the folder has none, never written.
 */
export function earlierReplayScreenFile(workspace: string, key: string): string {
  return join(workspacePaths(workspace).screens, `replay-${replayScreenName(key)}`, SCREEN_FILE);
}

/** A folder under `screens/` that holds a replay screen (older workspaces), not a run screen. */
export function isReplayScreenDir(dir: string): boolean {
  return existsSync(join(dir, SCREEN_FILE));
}
