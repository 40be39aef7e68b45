import { writeSync } from "node:fs";
import { resolve } from "node:path";
import {
  HOOK_OPTIONS,
  type HookOptionsConfig,
  parseHookWords,
} from "../core/deploy/hook-options.js";
import { defaultPortfolioDir } from "../core/freeze/default.js";
import { LockBusyError } from "./lock.js";
import { defaultLogFile, defaultStateDir, type HookAnswer, runHook } from "./run-hook.js";
import { readStdin, type StdinRead, type StdinSource } from "./stdin.js";

export { readStdin };

/**
 * `fire hook [--portfolio FILE|DIR] [--state-dir DIR] [--log FILE] [--fail-closed]
 * [--workspace DIR]`: one harness event on stdin → one answer on stdout, exit 0.
 * Loaded by the CLI's fast path before commander; imports nothing from ui/ or llm/.
 */

export async function runHookCli(args: string[]): Promise<number> {
  const stdin = await readStdin(undefined, undefined, handedStdin());
  const call = await hookCall(args, { env: process.env, cwd: process.cwd(), stdin });
  if (call.stdout) writeOut(call.stdout);
  if (call.stderr) process.stderr.write(call.stderr);
  return finishCli(stdin, call.code);
}

/** A hook call's process context. */
export interface HookCallContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdin: StdinRead;
  /** When the call's process started (its lock deadline counts from then). */
  startedAt?: number;
  /** False: a held session lock refuses the call instead of waiting (resident.cts). */
  lockWait?: boolean;
  /** Resolves once the answer reached the caller: the state's rename and the log wait for it. */
  answered?: Promise<void>;
}

/** What one hook call answers: the text for stdout and stderr, and the exit code. */
export interface HookCallResult {
  stdout: string;
  stderr: string;
  code: number;
  /** Not answered (its session lock was held and `lockWait` was false): answer it elsewhere. */
  refused?: string;
  /** With `answered`: resolves when the call's state and log are written. */
  settled?: Promise<void>;
}

/**
 * One hook call with its process context given (arguments, environment, working folder and
 * the stdin as read): the resident evaluator (resident.cts) answers through this too.
 */
export async function hookCall(args: string[], ctx: HookCallContext): Promise<HookCallResult> {
  const { values, usageError } = parseHookArgs(args, HOOK_OPTIONS);
  const env = ctx.env;
  const workspace = resolve(ctx.cwd, str(values.workspace) ?? env.FIRE_WORKSPACE ?? ctx.cwd);
  const stateDir = resolve(
    ctx.cwd,
    env.FIRE_STATE_DIR || str(values["state-dir"]) || defaultStateDir(workspace),
  );
  const logFile = resolve(ctx.cwd, str(values.log) ?? defaultLogFile(workspace));
  let answer: HookAnswer;
  try {
    answer = await runHook(ctx.stdin, {
      // Without --portfolio: the workspace's newest frozen portfolio (portfolios/*/manifest.json).
      portfolio: str(values.portfolio) ?? defaultPortfolioDir(workspace),
      stateDir,
      logFile,
      failClosed: values["fail-closed"] === true,
      observe: values.observe === true,
      usageError,
      env,
      ...(ctx.startedAt !== undefined ? { startedAt: ctx.startedAt } : {}),
      ...(ctx.lockWait === false ? { lockWait: false } : {}),
      ...(ctx.answered !== undefined ? { answered: ctx.answered } : {}),
    });
  } catch (err) {
    if (err instanceof LockBusyError)
      return { stdout: "", stderr: "", code: 0, refused: err.message };
    throw err;
  }
  return {
    stdout: answer.output ? `${JSON.stringify(answer.output)}\n` : "",
    stderr: usageError ? `fire hook: ${usageError}\n` : "",
    code: 0,
    ...(answer.settled !== undefined ? { settled: answer.settled } : {}),
  };
}

/**
 * Where a caller that already read stdin leaves its bytes and its deadline (the resident
 * client, resident-client.cts, which sets the same registered symbol).
 */
const HANDED_STDIN = Symbol.for("fire.hook.stdin");

/** Bytes of fd 0 a caller read before this call, to be read first (then fd 0 on). */
function handedStdin(): StdinSource {
  const g = globalThis as { [HANDED_STDIN]?: { bytes: Buffer; deadlineAt?: number } };
  const handed = g[HANDED_STDIN];
  delete g[HANDED_STDIN];
  if (!handed) return {};
  return handed.deadlineAt === undefined
    ? { prefix: handed.bytes }
    : { prefix: handed.bytes, deadlineAt: handed.deadlineAt };
}

/**
 * The exit code; a stdin read left pending (a writer that never closed) would keep the
 * process alive, so then the process exits here, after the answer was written.
 */
export function finishCli(stdin: StdinRead, code: number): number {
  if ("abandoned" in stdin && stdin.abandoned) process.exit(code);
  return code;
}

/**
 * Parses a hook command line (`fire hook` or the payload hook). A bad one must not break
 * the agent either: it becomes a `usageError` (a logged fault) and the options that could be
 * read are still used.
 */
export function parseHookArgs(
  args: string[],
  options: HookOptionsConfig,
): { values: Record<string, string | boolean | undefined>; usageError: string | undefined } {
  const { values, error } = parseHookWords(args, options);
  return {
    values,
    usageError: error === undefined ? undefined : `bad hook command line: ${error}`,
  };
}

/** Writes the hook's answer to stdout and a command-line fault to stderr; the exit code (0). */
export function sendAnswer(answer: HookAnswer, usageError: string | undefined): number {
  if (answer.output) writeOut(`${JSON.stringify(answer.output)}\n`);
  if (usageError) process.stderr.write(`fire hook: ${usageError}\n`);
  return 0;
}

/** Writes to fd 1 directly (creating process.stdout costs more than the write itself). */
export function writeOut(text: string): void {
  const buf = Buffer.from(text);
  let done = 0;
  try {
    while (done < buf.length) done += writeSync(1, buf, done);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EPIPE") return; // the harness stopped reading
    process.stdout.write(buf.subarray(done)); // a full non-blocking pipe: the stream queues the rest
  }
}

/** A non-empty string option, else undefined. */
export function str(v: string | boolean | undefined): string | undefined {
  return typeof v === "string" && v.length > 0 ? v : undefined;
}
