import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { REPO_ROOT } from "./paths.js";

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built `fire` CLI (dist/, built by `npm test` before vitest) as a real process. */
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
