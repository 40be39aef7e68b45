import { existsSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { BundleManifest } from "../core/deploy/bundle-manifest.js";
import {
  buildOneChunk,
  builtinsWithoutFacades,
  bundleStandaloneHook,
  sourcesOf,
  writeBundleFiles,
} from "./bundle-standalone.js";

/**
 * Build step (`node dist/build/bundle.js`, run by `npm run build` after tsc): bundles the
 * hook's hot path (dist/runtime/main.js and every module it loads eagerly) into ONE file,
 * `dist/runtime/hook.bundle.mjs`, because loading ~20 small ES modules is a large part of the
 * hook's start-up. Packages stay external; the cold paths (policy loader, freeze verifier,
 * stdin explainer) stay lazy imports of the plain dist/ modules. `hook.bundle.json` lists
 * every bundled module with size and mtime, so `fire hook` uses the bundle only while it
 * matches dist/. Without rolldown (a vite dependency) the step is skipped.
 */
const DIST = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const COLD = [
  /[\\/]core[\\/]policy[\\/]load\.js$/,
  /[\\/]core[\\/]freeze[\\/]verify\.js$/,
  /[\\/]runtime[\\/]hook-input\.js$/,
];

export const BUNDLE_FILE = "hook.bundle.mjs";
export const MANIFEST_FILE = "hook.bundle.json";

export async function bundleHook(
  outDir = join(DIST, "runtime"),
): Promise<BundleManifest | undefined> {
  const chunk = await buildOneChunk("hook bundle", {
    input: join(DIST, "runtime/main.js"),
    external: (id) => !id.startsWith(".") && !isAbsolute(id),
    plugin: {
      name: "cold-paths-stay-lazy",
      resolveId(id, importer) {
        if (!importer || !id.startsWith(".")) return null;
        const abs = resolve(dirname(importer), id);
        return COLD.some((re) => re.test(abs)) ? { id: abs, external: true } : null;
      },
    },
  });
  if (!chunk) return undefined;
  // External relative imports keep their spelling: they must resolve from outDir too.
  for (const m of chunk.code.matchAll(/(?:from|import\()\s*["'](\.{1,2}\/[^"']+)["']/g)) {
    const target = resolve(outDir, m[1] as string);
    if (!existsSync(target))
      throw new Error(`hook bundle: ${m[1]} would not resolve from ${outDir}`);
  }
  const manifest: BundleManifest = { entry: BUNDLE_FILE, sources: sourcesOf(chunk.moduleIds) };
  writeBundleFiles(outDir, builtinsWithoutFacades(chunk.code), MANIFEST_FILE, manifest);
  return manifest;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const m = await bundleHook();
  process.stdout.write(
    m
      ? `hook bundle: ${m.sources.length} modules → dist/runtime/${BUNDLE_FILE}\n`
      : "hook bundle: rolldown not installed, skipped\n",
  );
  const s = m ? await bundleStandaloneHook() : undefined;
  if (s)
    process.stdout.write(
      `standalone hook: ${s.sources.length} modules → dist/runtime/${s.entry} (screen payloads)\n`,
    );
}
