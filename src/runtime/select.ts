import { readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** What `bundle.ts` records next to the hook bundle. */
export interface BundleManifest {
  entry: string;
  /** Every module inside the bundle, relative to dist/, as it was when bundled. */
  sources: { path: string; size: number; mtimeMs: number }[];
}

const DIST = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** True when every bundled module is still the file in dist/ it was built from. */
export function isFresh(manifest: BundleManifest, distDir: string): boolean {
  if (!manifest.sources.length) return false;
  for (const s of manifest.sources) {
    try {
      const st = statSync(join(distDir, s.path));
      if (st.size !== s.size || st.mtimeMs !== s.mtimeMs) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * The module `fire hook` loads: the bundle when it exists and is fresh, else the plain
 * compiled modules (same code; a `tsc` without the bundle step never leaves a stale bundle
 * in use).
 */
export function hookModuleUrl(bundleDir = join(DIST, "runtime")): string {
  try {
    const manifest = JSON.parse(
      readFileSync(join(bundleDir, "hook.bundle.json"), "utf8"),
    ) as BundleManifest;
    if (isFresh(manifest, DIST)) return pathToFileURL(join(bundleDir, manifest.entry)).href;
  } catch {
    // no bundle: use the modules
  }
  return pathToFileURL(join(DIST, "runtime/main.js")).href;
}
