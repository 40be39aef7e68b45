import { existsSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { BundleManifest } from "./select.js";

/**
 * Build step (`node dist/runtime/bundle.js [--out DIR]`, run by `npm run build` after tsc):
 * bundles the compiled hook (dist/runtime/main.js and the policy modules it reaches) into a
 * few files, because loading ~20 small ES modules is a large part of the hook's start-up.
 * Packages stay external and lazy chunks stay lazy. The manifest lists every source module
 * with its size and mtime, so `fire hook` uses the bundle only while it matches dist/.
 * Without rolldown (a vite dependency) this step is skipped and the hook runs from dist/.
 */
const DIST = resolve(dirname(fileURLToPath(import.meta.url)), "..");

export async function bundleHook(outDir: string): Promise<BundleManifest | undefined> {
  let rolldown: typeof import("rolldown");
  try {
    rolldown = await import("rolldown");
  } catch {
    return undefined;
  }
  const tmp = `${outDir}.tmp-${process.pid}`;
  const result = await rolldown.build({
    input: { hook: join(DIST, "runtime/main.js") },
    platform: "node",
    external: (id) => !id.startsWith(".") && !isAbsolute(id),
    logLevel: "silent",
    output: {
      dir: tmp,
      format: "esm",
      entryFileNames: "[name].mjs",
      chunkFileNames: "[name]-[hash].mjs",
    },
    write: true,
  });
  const ids = new Set<string>();
  for (const o of result.output) if (o.type === "chunk") for (const id of o.moduleIds) ids.add(id);
  const manifest: BundleManifest = {
    entry: "hook.mjs",
    sources: [...ids]
      .filter((id) => isAbsolute(id) && existsSync(id))
      .sort()
      .map((id) => {
        const s = statSync(id);
        return { path: relative(DIST, id), size: s.size, mtimeMs: s.mtimeMs };
      }),
  };
  writeFileSync(join(tmp, "manifest.json"), JSON.stringify(manifest));
  const old = `${outDir}.old-${process.pid}`;
  if (existsSync(outDir)) renameSync(outDir, old);
  renameSync(tmp, outDir);
  rmSync(old, { recursive: true, force: true });
  return manifest;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf("--out");
  const out =
    i > 0 && process.argv[i + 1]
      ? resolve(process.argv[i + 1] as string)
      : join(DIST, "runtime/bundle");
  const m = await bundleHook(out);
  process.stdout.write(
    m
      ? `hook bundle: ${m.sources.length} modules → ${relative(process.cwd(), out)}\n`
      : "hook bundle: rolldown not installed, skipped\n",
  );
}
