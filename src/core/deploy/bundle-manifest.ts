import type * as Fs from "node:fs";
import type * as Path from "node:path";
import { builtin } from "../builtin.js";

// Runs on each `fire hook` before the bundle, and when a run checks the standalone hook it is
// about to deploy: built-ins without their ESM facades (core/builtin.ts).
const { readFileSync, statSync } = builtin<typeof Fs>("node:fs");
const { join, sep } = builtin<typeof Path>("node:path");

/** What the build (src/build/bundle*.ts) records next to a hook bundle. */
export interface BundleManifest {
  entry: string;
  /**
   * Every module inside the bundle, relative to dist/, as it was when bundled; `sha256` of
   * its content lets a re-emitted but identical module (a later `tsc`) keep the bundle.
   */
  sources: { path: string; size: number; mtimeMs: number; sha256?: string }[];
}

/**
 * Whether every bundled module is still the file in dist/ it was built from: "fresh" when
 * size and mtime match (one stat each); "refreshed" when some mtimes moved but those files
 * still hash to what was bundled (e.g. `tsc` re-emitted the same code); "stale" otherwise.
 * `manifest` is updated in place with the new mtimes when "refreshed".
 */
export function freshness(
  manifest: BundleManifest,
  distDir: string,
): "fresh" | "refreshed" | "stale" {
  if (!manifest.sources.length) return "stale";
  const moved: { s: BundleManifest["sources"][number]; mtimeMs: number }[] = [];
  // `dir/path` by concatenation: path.join per module made its normalizer hot enough for
  // V8 to optimize it, on every hook call (the paths are the build's own, already normal)
  const dir = distDir.endsWith(sep) ? distDir : `${distDir}${sep}`;
  for (const s of manifest.sources) {
    try {
      const st = statSync(dir + s.path);
      if (st.size !== s.size) return "stale";
      if (st.mtimeMs !== s.mtimeMs) moved.push({ s, mtimeMs: st.mtimeMs });
    } catch {
      return "stale";
    }
  }
  if (moved.length === 0) return "fresh";
  // Slow path (only after a rebuild): node:crypto is loaded only here.
  const { createHash } = builtin<typeof import("node:crypto")>("node:crypto");
  for (const { s, mtimeMs } of moved) {
    if (!s.sha256) return "stale";
    let text: Buffer;
    try {
      text = readFileSync(join(distDir, s.path));
    } catch {
      return "stale";
    }
    if (createHash("sha256").update(text).digest("hex") !== s.sha256) return "stale";
    s.mtimeMs = mtimeMs;
  }
  return "refreshed";
}

/** True when the bundle may be used (its modules are unchanged in content). */
export function isFresh(manifest: BundleManifest, distDir: string): boolean {
  return freshness(structuredClone(manifest), distDir) !== "stale";
}
