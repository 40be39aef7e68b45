#!/usr/bin/env node
import { readFileSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import type * as Vm from "node:vm";
import type * as Resident from "../runtime/resident-client.cjs";
import type * as ScriptLoader from "../runtime/script-loader.cjs";
import type * as HookArgv from "./hook-argv.cjs";
import type * as StaticHelp from "./static-help.cjs";

/**
 * The `fire` bin. A live hook call (`fire hook [flags]`, once per harness event) is first
 * handed to the resident evaluator, a per-user process that keeps the hook loaded
 * (src/runtime/resident-client.cts says when it is used and how it is secured); when there is
 * none, the call runs here: the hook script, dist/runtime/hook.script.cjs, compiled with V8's
 * code cache (src/runtime/script-loader.cts). Every other command, and a hook whose script is
 * missing, stale or unloadable, goes to the ES module CLI (main.js), which has its own hook
 * path (the ES module bundle, else the plain modules): same code, same answers.
 */
const RUNTIME = join(__dirname, "..", "runtime");

function start(argv: string[]): void {
  const hook = own<typeof HookArgv>(join(__dirname, "hook-argv.cjs")).isHookRun(argv);
  // the static help is loaded only for what it answers (a hook call never asks it)
  const answer = hook
    ? undefined
    : (require("./static-help.cjs") as typeof StaticHelp).staticAnswer(argv.slice(2), __dirname);
  if (answer !== undefined) {
    writeOut(answer);
    return;
  }
  if (!hook) {
    void import("./main.js"); // runs the CLI
    return;
  }
  const resident = own<typeof Resident>(join(RUNTIME, "resident-client.cjs"));
  void resident.answerResident(argv.slice(3), RUNTIME).then((done) => {
    if (!done) runHere(argv);
  });
}

/** One hook call in this process: the hook script, else the ES module CLI's hook path. */
function runHere(argv: string[]): void {
  const loader = require("../runtime/script-loader.cjs") as typeof ScriptLoader;
  const loaded = loader.loadHookScript(RUNTIME);
  if (!loaded) {
    void import("./main.js"); // runs the hook when the script cannot
    return;
  }
  void loaded.hook.runHookCli(argv.slice(3)).then((code) => {
    process.exitCode = code;
    loaded.keepCache();
  });
}

/**
 * Loads one of fire's own CommonJS files on a hook call's path by its path, as `require` would
 * run it but without the CommonJS loader's resolution (a stat and realpath of every folder
 * and package.json lookups: ~1 ms of a ~60 ms call). Such a file requires only node
 * built-ins, through this file's `require`.
 */
function own<T>(file: string): T {
  const mod = { exports: {} as T };
  const wrapped = (require("node:vm") as typeof Vm).compileFunction(
    readFileSync(file, "utf8"),
    ["exports", "require", "module", "__filename", "__dirname"],
    { filename: file },
  );
  wrapped(mod.exports, require, mod, file, dirname(file));
  return mod.exports;
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

start(process.argv);
