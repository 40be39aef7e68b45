import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (this file is test/helpers/paths.ts). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/**
 * Real traces shared with the project: `<repo>/../shared/fixtures` (read-only), or
 * `$FIRE_SHARED_FIXTURES` for a checkout elsewhere (a git worktree).
 */
export const FIXTURES =
  process.env.FIRE_SHARED_FIXTURES ?? resolve(REPO_ROOT, "../shared/fixtures");
export const fixture = (...parts: string[]): string => resolve(FIXTURES, ...parts);
