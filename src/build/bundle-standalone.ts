import { createHash } from "node:crypto";
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { ExternalOption, OutputChunk, RolldownPlugin } from "rolldown";
import type { BundleManifest } from "../core/deploy/bundle-manifest.js";

/**
 * Build step: the SELF-CONTAINED hook (`dist/runtime/hook.standalone.mjs`) that screens copy
 * into an agent's container as `fire-hook.mjs`. Unlike the CLI's bundle, every package
 * (proper-lockfile, …) is inlined and nothing is left to import from dist/ or node_modules:
 * it needs only `node`. The cold paths it never takes with a compiled payload portfolio
 * (policy loader: zod/yaml/recheck; freeze verifier; zod stdin explainer) are replaced by a
 * stub: loading candidate files stays fire's job on the host.
 */
const DIST = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const STANDALONE_FILE = "hook.standalone.mjs";
export const STANDALONE_MANIFEST = "hook.standalone.json";
/** The failproofai adapter (runtime/failproofai.ts), self-contained the same way. */
export const FAILPROOFAI_FILE = "failproofai.standalone.mjs";
export const FAILPROOFAI_MANIFEST = "failproofai.standalone.json";

const STUBBED = [
  /[\\/]core[\\/]policy[\\/]load\.js$/,
  /[\\/]core[\\/]freeze[\\/]verify\.js$/,
  /[\\/]runtime[\\/]hook-input\.js$/,
];
const STUB_ID = "\0fire-payload-stub";
const STUB = `
const unavailable = (what) => () => {
  throw new Error(what + " is not part of the payload hook (it runs a compiled portfolio)");
};
export const loadPolicies = unavailable("the candidate loader");
export const loadFrozenPortfolio = unavailable("the frozen-portfolio verifier");
export const explainHookInput = () => "rejected by the event check";
`;

export async function bundleStandaloneHook(
  outDir = join(DIST, "runtime"),
): Promise<BundleManifest | undefined> {
  return bundleSelfContained(
    "standalone hook",
    "runtime/payload-bin.js",
    STANDALONE_FILE,
    STANDALONE_MANIFEST,
    outDir,
  );
}

/** The failproofai adapter: the same hook host, for `fire export --format failproofai`. */
export async function bundleFailproofaiAdapter(
  outDir = join(DIST, "runtime"),
): Promise<BundleManifest | undefined> {
  return bundleSelfContained(
    "failproofai adapter",
    "runtime/failproofai.js",
    FAILPROOFAI_FILE,
    FAILPROOFAI_MANIFEST,
    outDir,
  );
}

async function bundleSelfContained(
  label: string,
  entry: string,
  file: string,
  manifestFile: string,
  outDir: string,
): Promise<BundleManifest | undefined> {
  const chunk = await buildOneChunk(label, {
    input: join(DIST, entry),
    external: (id) => id.startsWith("node:"),
    plugin: {
      name: "payload-stubs",
      resolveId(id, importer) {
        if (id === STUB_ID) return id;
        if (!importer || !id.startsWith(".")) return null;
        const abs = resolve(dirname(importer), id);
        return STUBBED.some((re) => re.test(abs)) ? STUB_ID : null;
      },
      load(id) {
        return id === STUB_ID ? STUB : null;
      },
    },
  });
  if (!chunk) return undefined;
  const code = builtinsWithoutFacades(chunk.code);
  // import statements start their line in rolldown's output (inlined packages' doc comments
  // hold example imports that are not code)
  const outside = [
    ...code.matchAll(
      /^(?:import|export)\s[^\n]*?\bfrom\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm,
    ),
  ]
    .map((m) => (m[1] ?? m[2]) as string)
    .filter((spec) => !spec.startsWith("node:"));
  if (outside.length > 0)
    throw new Error(`${label}: still imports ${[...new Set(outside)].join(", ")}`);
  const manifest: BundleManifest = {
    entry: file,
    sources: sourcesOf(chunk.moduleIds.filter((id) => isAbsolute(id))),
  };
  writeBundleFiles(outDir, code, manifestFile, manifest);
  return manifest;
}

/**
 * Bundles `input` into ONE esm chunk with rolldown (held in memory, not written); undefined
 * when rolldown (a vite dependency) is not installed. `label` names the bundle in errors.
 */
export async function buildOneChunk(
  label: string,
  opts: {
    input: string;
    external: ExternalOption;
    plugin: RolldownPlugin;
    format?: "esm" | "cjs";
    /**
     * "ascii": non-ASCII characters escaped (`\\uXXXX`) and comments (which keep theirs)
     * dropped, so the text reads as Latin-1.
     */
    charset?: "ascii" | "utf8";
  },
): Promise<OutputChunk | undefined> {
  let rolldown: typeof import("rolldown");
  try {
    rolldown = await import("rolldown");
  } catch {
    return undefined;
  }
  const result = await rolldown.build({
    input: opts.input,
    platform: "node",
    external: opts.external,
    plugins: [opts.plugin],
    logLevel: "silent",
    output: {
      format: opts.format ?? "esm",
      codeSplitting: false,
      ...(opts.charset === "ascii" ? { charset: "ascii" as const, comments: false } : {}),
    },
    write: false,
  });
  const chunk = result.output.find((o) => o.type === "chunk");
  if (!chunk || result.output.length !== 1) throw new Error(`${label}: expected one chunk`);
  return chunk;
}

/** Writes the bundle (`manifest.entry`) and its manifest into outDir, each via temp + rename. */
export function writeBundleFiles(
  outDir: string,
  code: string,
  manifestFile: string,
  manifest: BundleManifest,
): void {
  const tmp = `.${process.pid}.tmp`;
  writeFileSync(join(outDir, manifest.entry + tmp), code);
  writeFileSync(join(outDir, manifestFile + tmp), JSON.stringify(manifest));
  renameSync(join(outDir, manifest.entry + tmp), join(outDir, manifest.entry));
  renameSync(join(outDir, manifestFile + tmp), join(outDir, manifestFile));
}

/** Each bundled dist/ module with its size, mtime and content hash (for freshness checks). */
export function sourcesOf(moduleIds: readonly string[]): BundleManifest["sources"] {
  return moduleIds
    .filter((id) => isAbsolute(id) && existsSync(id))
    .sort()
    .map((id) => {
      const s = statSync(id);
      const sha256 = createHash("sha256").update(readFileSync(id)).digest("hex");
      return { path: relative(DIST, id), size: s.size, mtimeMs: s.mtimeMs, sha256 };
    });
}

/**
 * Rewrites the bundle's `import { a, b as c } from "node:x"` lines into
 * `const { a, b: c } = __fireBuiltin("node:x")`. An ESM import of a built-in builds its
 * module facade by reading every export, which fires node:fs's lazy getters and loads the
 * whole streams stack (~4 ms per hook call); `process.getBuiltinModule` (Node ≥ 20.16, else
 * `createRequire`) hands out the CommonJS object without touching them.
 */
export function builtinsWithoutFacades(code: string): string {
  let found = false;
  const out = code.replace(
    /^import\s*\{([^}]*)\}\s*from\s*"(node:[\w/]+)";$/gm,
    (_m, names: string, id: string) => {
      found = true;
      const fields = names
        .split(",")
        .map((n) => n.trim())
        .filter(Boolean)
        .map((n) => n.replace(/^([\w$]+)\s+as\s+([\w$]+)$/, "$1: $2"));
      return `const { ${fields.join(", ")} } = __fireBuiltin(${JSON.stringify(id)});`;
    },
  );
  if (/^import[\s{*]/m.test(out) || /;import[\s{*]/.test(out))
    throw new Error("hook bundle: an import form left unrewritten");
  if (!found) return out;
  const helper =
    'const __fireBuiltin = typeof process.getBuiltinModule === "function" ? (id) => process.getBuiltinModule(id) : (await import("node:module")).createRequire(import.meta.url);\n';
  return helper + out;
}
