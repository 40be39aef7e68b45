import { spawn, spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { REPO_ROOT } from "./paths.js";

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
  const r = spawnSync(process.execPath, [resolve(REPO_ROOT, "dist/cli/main.js"), ...args], {
    cwd: opts.cwd ?? REPO_ROOT,
    input: opts.input,
    env: { ...process.env, NO_COLOR: "1", ...opts.env },
    encoding: "utf8",
    timeout: opts.timeoutMs ?? 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
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
  return spawnAsync(process.execPath, [resolve(REPO_ROOT, "dist/cli/main.js"), ...args], cwd, env);
}
