import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type * as Url from "node:url";
import { Script } from "node:vm";
import type { HookCallContext, HookCallResult } from "./main.js";
import type { StdinRead, StdinSource } from "./stdin.js";

/**
 * Loads dist/runtime/hook.script.cjs, the hook as ONE CommonJS script, compiled with V8's
 * code cache: CommonJS skips the ES module loader, and the cache skips compiling what a call
 * runs. The `fire` bin (src/cli/fire.cts) runs one hook call with it; the resident evaluator
 * (resident.cts) keeps it loaded. The cache lives beside the script, keyed by the script's
 * content and V8's version; it is written (atomically) when missing or rejected.
 */
export const SCRIPT = "hook.script.cjs";
const SCRIPT_MANIFEST = "hook.script.json";
const HEADER = /^\/\/ fire-hook-script key=([0-9a-f]+) v8-flags=(\S*)( charset=ascii)?\n/;

/** What the script exports (src/runtime/script-entry.ts). */
export interface HookScript {
  runHookCli(args: string[]): Promise<number>;
  hookCall(args: string[], ctx: HookCallContext): Promise<HookCallResult>;
  readStdin(cap?: number, deadlineMs?: number, source?: StdinSource): Promise<StdinRead>;
  currentBundle(bundleDir: string, manifestFile: string, distDir: string): unknown;
}

export interface Loaded {
  hook: HookScript;
  /** Whether the script still matches dist/ (the check a one-shot call makes once). */
  fresh(): boolean;
  /** Writes the code cache when there was none or V8 rejected it. */
  keepCache(): void;
}

/** The hook script of `runtimeDir` (dist/runtime), or undefined when missing, stale or broken. */
export function loadHookScript(runtimeDir: string): Loaded | undefined {
  const RUNTIME = runtimeDir;
  const DIST = join(runtimeDir, "..");
  const file = join(RUNTIME, SCRIPT);
  let code: string;
  let header: RegExpExecArray | null;
  try {
    // Latin-1 is a plain copy; the build escapes every non-ASCII character (`charset=ascii`)
    code = readFileSync(file, "latin1");
    header = HEADER.exec(code);
    if (header && !header[3]) {
      code = readFileSync(file, "utf8"); // a script built without the escaping
      header = HEADER.exec(code);
    }
  } catch {
    return undefined;
  }
  if (!header) return undefined;
  setV8Flags((header[2] as string).split(",").filter(Boolean));
  const cacheFile = join(RUNTIME, `${SCRIPT}.${header[1]}-${process.versions.v8}.cache`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  try {
    const script = new Script(
      `(function (exports, require, module, __filename, __dirname, __fireImport) {${code}\n})`,
      { filename: file, cachedData },
    );
    const mod = { exports: {} as HookScript };
    // the script's cold paths (relative ES modules in dist/) load through this module's import()
    const load = (spec: string): Promise<unknown> =>
      import((require("node:url") as typeof Url).pathToFileURL(join(RUNTIME, spec)).href);
    script.runInThisContext()(mod.exports, builtinRequire(file), mod, file, RUNTIME, load);
    const fresh = () => Boolean(mod.exports.currentBundle(RUNTIME, SCRIPT_MANIFEST, DIST));
    if (!fresh()) return undefined;
    return {
      hook: mod.exports,
      fresh,
      keepCache() {
        if (cachedData && !script.cachedDataRejected) return;
        writeAtomically(cacheFile, script.createCachedData());
      },
    };
  } catch {
    return undefined;
  }
}

/**
 * The script's `require`: it loads only built-ins, so `process.getBuiltinModule` (Node ≥
 * 20.16) serves it without creating a module loader for the file; anything else (or an
 * older Node) goes through `createRequire`, made on first need.
 */
function builtinRequire(file: string): NodeJS.Require {
  const get = process.getBuiltinModule;
  if (typeof get !== "function") return createRequire(file);
  let full: NodeJS.Require | undefined;
  const req = (id: string): unknown => {
    const m = get.call(process, id);
    if (m !== undefined) return m;
    full ??= createRequire(file);
    return full(id);
  };
  return req as NodeJS.Require;
}

/**
 * Sets the V8 flags the script's header names before it is compiled (the hook would set them
 * later; V8 rejects a cache made under other flags). Failing here costs only the cache.
 */
function setV8Flags(flags: string[]): void {
  if (flags.length === 0) return;
  type Setter = { setFlagsFromString(flag: string): void };
  const proc = process as unknown as { binding?: (name: string) => Partial<Setter> };
  const quiet = process.noDeprecation;
  let v8: Partial<Setter> | undefined;
  try {
    process.noDeprecation = true;
    v8 = proc.binding?.("v8");
  } catch {
    v8 = undefined; // gone in this Node: node:v8 below
  } finally {
    process.noDeprecation = quiet;
  }
  if (typeof v8?.setFlagsFromString !== "function")
    v8 = process.getBuiltinModule?.("node:v8") as Setter | undefined;
  try {
    for (const flag of flags) v8?.setFlagsFromString?.(flag);
  } catch {
    // no flag setter here: the cache is rejected and rewritten, the hook still runs
  }
}

function writeAtomically(file: string, data: Buffer): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, data);
    renameSync(tmp, file);
  } catch {
    // a read-only install: the next call compiles again; no temp file is left behind
    try {
      rmSync(tmp, { force: true });
    } catch {
      // nothing was written
    }
  }
}
