import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * vitest globalSetup: CLI, runtime and export tests spawn the built `dist/`, while core and UI
 * tests import `src/`. So that `npx vitest run` never tests a stale CLI, the build runs once
 * before any test when a source file (src/, tsconfig.json, package.json) is newer than the
 * last build's stamp (dist/runtime/hook.bundle.json, the build's last output). An up-to-date
 * build costs one directory walk.
 */
const ROOT = resolve(import.meta.dirname, "../..");
const STAMP = join(ROOT, "dist/runtime/hook.bundle.json");

function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    const m = e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs;
    if (m > newest) newest = m;
  }
  return newest;
}

export function buildIsStale(): boolean {
  if (!existsSync(STAMP)) return true;
  const built = statSync(STAMP).mtimeMs;
  const sources = Math.max(
    newestMtime(join(ROOT, "src")),
    statSync(join(ROOT, "tsconfig.json")).mtimeMs,
    statSync(join(ROOT, "package.json")).mtimeMs,
  );
  return sources > built;
}

export default function setup(): void {
  if (process.env.FIRE_TEST_SKIP_BUILD === "1" || !buildIsStale()) return;
  process.stderr.write("test setup: src/ is newer than dist/, running npm run build once\n");
  execFileSync("npm", ["run", "--silent", "build"], { cwd: ROOT, stdio: "inherit" });
}
