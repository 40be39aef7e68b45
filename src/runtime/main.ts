import { writeSync } from "node:fs";
import { resolve } from "node:path";
import {
  HOOK_OPTIONS,
  type HookOptionsConfig,
  parseHookWords,
} from "../core/deploy/hook-options.js";
import { defaultPortfolioDir } from "../core/freeze/default.js";
import { defaultLogFile, defaultStateDir, type HookAnswer, runHook } from "./run-hook.js";
import { readStdin, type StdinRead } from "./stdin.js";

export { readStdin };

/**
 * `fire hook [--portfolio FILE|DIR] [--state-dir DIR] [--log FILE] [--fail-closed]
 * [--workspace DIR]`: one harness event on stdin → one answer on stdout, exit 0.
 * Loaded by the CLI's fast path before commander; imports nothing from ui/ or llm/.
 */

export async function runHookCli(args: string[]): Promise<number> {
  const { values, usageError } = parseHookArgs(args, HOOK_OPTIONS);
  const env = process.env;
  const workspace = resolve(str(values.workspace) ?? env.FIRE_WORKSPACE ?? process.cwd());
  const stateDir = resolve(
    env.FIRE_STATE_DIR || str(values["state-dir"]) || defaultStateDir(workspace),
  );
  const logFile = resolve(str(values.log) ?? defaultLogFile(workspace));
  const stdin = await readStdin();
  const answer = await runHook(stdin, {
    // Without --portfolio: the workspace's newest frozen portfolio (portfolios/*/manifest.json).
    portfolio: str(values.portfolio) ?? defaultPortfolioDir(workspace),
    stateDir,
    logFile,
    failClosed: values["fail-closed"] === true,
    observe: values.observe === true,
    usageError,
    env,
  });
  return finishCli(stdin, sendAnswer(answer, usageError));
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
