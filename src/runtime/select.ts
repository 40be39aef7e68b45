import type * as Fs from "node:fs";
import type * as Path from "node:path";
import type * as Url from "node:url";
import { type BundleManifest, freshness } from "../core/deploy/bundle-manifest.js";

/** Built-ins without their ESM facades (see core/deploy/bundle-manifest.ts for why). */
const builtin: (id: string) => unknown =
  typeof process.getBuiltinModule === "function"
    ? (id) => process.getBuiltinModule(id)
    : (await import("node:module")).createRequire(import.meta.url);
const { readFileSync, renameSync, writeFileSync } = builtin("node:fs") as typeof Fs;
const { dirname, join, resolve } = builtin("node:path") as typeof Path;
const { fileURLToPath, pathToFileURL } = builtin("node:url") as typeof Url;

const DIST = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The module `fire hook` loads: the bundle when it exists and is fresh, else the plain
 * compiled modules (same code; a changed module never leaves a stale bundle in use). When
 * only mtimes moved, the manifest is rewritten (atomically) so later calls take the fast path.
 */
export function hookModuleUrl(bundleDir = join(DIST, "runtime"), distDir = DIST): string {
  try {
    const file = join(bundleDir, "hook.bundle.json");
    const manifest = JSON.parse(readFileSync(file, "utf8")) as BundleManifest;
    const state = freshness(manifest, distDir);
    if (state === "refreshed") {
      try {
        const tmp = `${file}.${process.pid}.tmp`;
        writeFileSync(tmp, JSON.stringify(manifest));
        renameSync(tmp, file);
      } catch {
        // a read-only install: the content check simply runs again next time
      }
    }
    if (state !== "stale") return pathToFileURL(join(bundleDir, manifest.entry)).href;
  } catch {
    // no bundle: use the modules
  }
  return pathToFileURL(join(distDir, "runtime/main.js")).href;
}
