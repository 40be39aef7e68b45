#!/usr/bin/env node
import { readFileSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type * as Url from "node:url";
import { Script } from "node:vm";
import { isHookRun } from "./hook-argv.cjs";
import type * as StaticHelp from "./static-help.cjs";

/**
 * The `fire` bin. A live hook call (`fire hook [flags]`, once per harness event) runs the
 * hook script, dist/runtime/hook.script.cjs, compiled with V8's code cache: CommonJS skips the
 * ES module loader, and the cache skips compiling what a call runs, which together are most
 * of a hook call's cost over a bare `node`. Every other command, and a hook whose script is
 * missing, stale or unloadable, goes to the ES module CLI (main.js), which has its own hook
 * path (the ES module bundle, else the plain modules): same code, same answers.
 *
 * The cache lives beside the script, keyed by the script's content and V8's version; it is
 * written (atomically) when missing or rejected. It is only as writable as the script itself.
 */
const DIST = join(__dirname, "..");
const RUNTIME = join(DIST, "runtime");
const SCRIPT = "hook.script.cjs";
const SCRIPT_MANIFEST = "hook.script.json";
const HEADER = /^\/\/ fire-hook-script key=([0-9a-f]+) v8-flags=(\S*)( charset=ascii)?\n/;

interface HookScript {
  runHookCli(args: string[]): Promise<number>;
  currentBundle(bundleDir: string, manifestFile: string, distDir: string): unknown;
}

interface Loaded {
  hook: HookScript;
  /** Writes the code cache when there was none or V8 rejected it. */
  keepCache(): void;
}

function start(argv: string[]): void {
  const hook = isHookRun(argv);
  // the static help is loaded only for what it answers (a hook call never asks it)
  const answer = hook
    ? undefined
    : (require("./static-help.cjs") as typeof StaticHelp).staticAnswer(argv.slice(2), __dirname);
  if (answer !== undefined) {
    writeOut(answer);
    return;
  }
  const loaded = hook ? loadHookScript() : undefined;
  if (!loaded) {
    void import("./main.js"); // runs the CLI (and the hook, when the script cannot)
    return;
  }
  void loaded.hook.runHookCli(argv.slice(3)).then((code) => {
    process.exitCode = code;
    loaded.keepCache();
  });
}

/** Writes to stdout without the streams stack; a reader that closed the pipe ends it quietly. */
function writeOut(text: string): void {
  const bytes = Buffer.from(text);
  let at = 0;
  try {
    while (at < bytes.length) at += writeSync(1, bytes, at);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EAGAIN") process.stdout.write(bytes.subarray(at));
    else if (code !== "EPIPE") throw err;
  }
}

function loadHookScript(): Loaded | undefined {
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
    if (!mod.exports.currentBundle(RUNTIME, SCRIPT_MANIFEST, DIST)) return undefined;
    return {
      hook: mod.exports,
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

start(process.argv);
