import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (this file is test/helpers/paths.ts). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/**
 * The real shared fixtures, vendored into the repository (`test/fixtures/shared/`, see its
 * README), so a clone alone runs every test that reads them.
 */
export const FIXTURES = resolve(REPO_ROOT, "test/fixtures/shared");
/** The 15 real Harbor OpenClaw trials: the demo workspace's own copy. */
const OPENCLAW = resolve(REPO_ROOT, "traces/harbor-openclaw");
export const fixture = (...parts: string[]): string => {
  const [first, ...rest] = parts.join("/").split("/");
  return first === "harbor-openclaw" ? resolve(OPENCLAW, ...rest) : resolve(FIXTURES, ...parts);
};

/**
 * A large optional data set that is not in the repository (fetched traces under `../devdata`,
 * the shared fixtures beside a checkout): its path when present, else `undefined` after
 * printing why the tests that need it are skipped. CI checks the repository out beside
 * `../shared`, so there they run. Use with `describe.skipIf(!path)`.
 */
export function optionalData(path: string, what: string): string | undefined {
  if (existsSync(path)) return path;
  process.stderr.write(`skipped: ${what} needs ${path}, which is not here\n`);
  return undefined;
}
/** Beside the repository: `../shared/fixtures` (or `$FIRE_SHARED_FIXTURES`). */
export const SHARED_BESIDE = resolve(
  process.env.FIRE_SHARED_FIXTURES ?? resolve(REPO_ROOT, "../shared/fixtures"),
);
/** Fetched public runs: `../devdata` (or `$FIRE_DEV_DATA`). */
export const DEV_DATA = resolve(process.env.FIRE_DEV_DATA ?? resolve(REPO_ROOT, "../devdata"));
