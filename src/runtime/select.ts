import type * as Fs from "node:fs";
import type * as Path from "node:path";
import type * as Url from "node:url";
import { builtin } from "../core/builtin.js";
import { type BundleManifest, freshness } from "../core/deploy/bundle-manifest.js";

const { readFileSync, renameSync, writeFileSync } = builtin<typeof Fs>("node:fs");
const { dirname, join, resolve } = builtin<typeof Path>("node:path");
const { fileURLToPath, pathToFileURL } = builtin<typeof Url>("node:url");

let dist: string | undefined;
/** dist/, worked out on first use (the hook script's bin passes its folders; no URL parse). */
function distDir(): string {
  dist ??= resolve(dirname(fileURLToPath(import.meta.url)), "..");
  return dist;
}

/**
 * The module `fire hook` loads: the bundle when it exists and is fresh, else the plain
 * compiled modules (same code; a changed module never leaves a stale bundle in use).
 */
export function hookModuleUrl(bundleDir = join(distDir(), "runtime"), dir = distDir()): string {
  const manifest = currentBundle(bundleDir, "hook.bundle.json", dir);
  return pathToFileURL(join(manifest ? bundleDir : dir, manifest?.entry ?? "runtime/main.js")).href;
}

/**
 * A bundle's manifest while every module in it is unchanged in content, else undefined (no
 * bundle, or a stale one). When only mtimes moved, the manifest is rewritten (atomically) so
 * later calls take the fast path.
 */
export function currentBundle(
  bundleDir: string,
  manifestFile: string,
  dir = distDir(),
): BundleManifest | undefined {
  try {
    const file = join(bundleDir, manifestFile);
    const manifest = JSON.parse(readFileSync(file, "utf8")) as BundleManifest;
    const state = freshness(manifest, dir);
    if (state === "refreshed") {
      try {
        const tmp = `${file}.${process.pid}.tmp`;
        writeFileSync(tmp, JSON.stringify(manifest));
        renameSync(tmp, file);
      } catch {
        // a read-only install: the content check simply runs again next time
      }
    }
    return state === "stale" ? undefined : manifest;
  } catch {
    return undefined; // no bundle: use the modules
  }
}
