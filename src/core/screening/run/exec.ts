import { spawn } from "node:child_process";

export interface ExecResult {
  code: number | null;
  timedOut: boolean;
  aborted: boolean;
  /** Last few KiB of output, for error messages (never logged elsewhere). */
  tail: string;
  durationS: number;
}

const TAIL = 4096;

/**
 * Runs a shell command (`sh -c`) in its own process group so a timeout or an abort can
 * stop everything it started. Resolves when the process has exited.
 */
export function execShell(
  command: string,
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number; signal?: AbortSignal },
): Promise<ExecResult> {
  const started = Date.now();
  return new Promise((resolvePromise) => {
    const child = spawn("sh", ["-c", command], {
      cwd: opts.cwd,
      env: opts.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let tail = "";
    const keep = (b: Buffer): void => {
      tail = (tail + b.toString("utf8")).slice(-TAIL);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    let timedOut = false;
    let aborted = false;
    const kill = (): void => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGTERM");
      } catch {
        /* already gone */
      }
    };
    const timer =
      opts.timeoutMs && opts.timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            kill();
          }, opts.timeoutMs)
        : undefined;
    const onAbort = (): void => {
      aborted = true;
      kill();
    };
    if (opts.signal?.aborted) onAbort();
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    const finish = (code: number | null): void => {
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      resolvePromise({ code, timedOut, aborted, tail, durationS: (Date.now() - started) / 1000 });
    };
    child.on("error", (err) => {
      tail += `\n${err.message}`;
      finish(null);
    });
    child.on("close", (code) => finish(code));
  });
}
