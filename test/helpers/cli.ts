import { spawn, spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { runCli } from "../../src/cli/run.js";
import { REPO_ROOT } from "./paths.js";
import { residentSettled } from "./resident.js";

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built `fire` CLI (dist/, rebuilt by test/setup/build-once.ts when src/ is newer) as a real process. */
export function runFire(
  args: string[],
  opts: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): RunResult {
  const r = spawnSync(process.execPath, [resolve(REPO_ROOT, "dist/cli/fire.cjs"), ...args], {
    cwd: opts.cwd ?? REPO_ROOT,
    input: opts.input,
    env: { ...process.env, NO_COLOR: "1", ...opts.env },
    encoding: "utf8",
    // a ceiling for a hang, under the 180 s a test may take: on a loaded 2-core machine the
    // five commands of test/ui/portfolio.test.tsx's setup took 70 s
    timeout: opts.timeoutMs ?? 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (args[0] === "hook") residentSettled({ ...process.env, ...opts.env });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export interface AsyncRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Any command as a child process, without blocking the event loop. */
export function spawnAsync(
  cmd: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<AsyncRun> {
  return new Promise((done, fail) => {
    const p = spawn(cmd, args, { cwd, env: { ...process.env, NO_COLOR: "1", ...env } });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    p.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    p.on("error", fail);
    p.on("close", (code) => done({ code, stdout, stderr }));
  });
}

/**
 * The built CLI as a child process, without blocking the event loop: for tests whose server
 * (e.g. the fake OpenAI endpoint) lives in the test process itself.
 */
export function runFireAsync(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<AsyncRun> {
  return spawnAsync(process.execPath, [resolve(REPO_ROOT, "dist/cli/fire.cjs"), ...args], cwd, env);
}

type Write = typeof process.stdout.write;

/** Collects what is written to a stream instead of writing it; returns the restore. */
function capture(stream: NodeJS.WriteStream, into: string[]): () => void {
  const original = stream.write;
  stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    into.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    const done = rest.find((r) => typeof r === "function") as (() => void) | undefined;
    done?.();
    return true;
  }) as Write;
  return () => {
    stream.write = original;
  };
}

let queue: Promise<unknown> = Promise.resolve();

/**
 * The `fire` CLI from src/ inside this test process (src/cli/run.ts: the argument parsing,
 * commands, output and exit codes a spawned `fire` has), without a node start and a module
 * load per call. stdout/stderr are captured, `env` and `cwd` set for the call and restored;
 * calls run one at a time. For commands that read no stdin and run no hook or harness
 * (those name the built CLI): spawn them with runFire.
 */
export function fireIn(
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<RunResult> {
  const run = queue.then(() => fireInNow(args, opts));
  queue = run.catch(() => undefined);
  return run;
}

async function fireInNow(
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv },
): Promise<RunResult> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const env: NodeJS.ProcessEnv = { NO_COLOR: "1", ...opts.env };
  const savedEnv = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  const savedCwd = process.cwd();
  const savedExit = process.exitCode;
  const restoreOut = capture(process.stdout, stdout);
  const restoreErr = capture(process.stderr, stderr);
  const restoreTty = notTerminals(); // as spawnSync's pipes: no workbench, no progress bars
  let status: number;
  try {
    for (const [k, v] of Object.entries(env)) setEnv(k, v);
    process.chdir(opts.cwd ?? REPO_ROOT);
    process.exitCode = undefined;
    status = await runCli([process.execPath, "fire", ...args]);
  } finally {
    restoreOut();
    restoreErr();
    restoreTty();
    process.exitCode = savedExit;
    process.chdir(savedCwd);
    for (const [k, v] of Object.entries(savedEnv)) setEnv(k, v);
  }
  return { status, stdout: stdout.join(""), stderr: stderr.join("") };
}

function notTerminals(): () => void {
  const streams = [process.stdin, process.stdout, process.stderr] as { isTTY?: boolean }[];
  const saved = streams.map((s) => Object.getOwnPropertyDescriptor(s, "isTTY"));
  for (const s of streams) Object.defineProperty(s, "isTTY", { value: false, configurable: true });
  return () => {
    streams.forEach((s, i) => {
      const d = saved[i];
      if (d) Object.defineProperty(s, "isTTY", d);
      else delete s.isTTY;
    });
  };
}

function setEnv(key: string, value: string | undefined): void {
  if (value === undefined) delete process.env[key];
  else process.env[key] = value;
}
