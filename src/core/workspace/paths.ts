import { join, resolve } from "node:path";

/** The config file name at the root of every workspace. */
export const CONFIG_FILE = "fire.config.json";

/** Every folder of a workspace, as absolute paths. */
export interface WorkspacePaths {
  root: string;
  config: string;
  traces: string;
  candidates: string;
  screens: string;
  portfolios: string;
  /** `.fire/` (git-ignored): caches and state, never user data. */
  fire: string;
  cache: string;
  /** Parse cache: one entry per source unit. */
  parseCache: string;
  state: string;
}

/** The workspace layout resolved from a workspace directory (nothing is created). */
export function workspacePaths(dir: string): WorkspacePaths {
  const root = resolve(dir);
  const fire = join(root, ".fire");
  const cache = join(fire, "cache");
  return {
    root,
    config: join(root, CONFIG_FILE),
    traces: join(root, "traces"),
    candidates: join(root, "candidates"),
    screens: join(root, "screens"),
    portfolios: join(root, "portfolios"),
    fire,
    cache,
    parseCache: join(cache, "parse"),
    state: join(fire, "state"),
  };
}
