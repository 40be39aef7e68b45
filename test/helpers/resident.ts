import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { REPO_ROOT } from "./paths.js";

const residentClient = createRequire(import.meta.url)(
  resolve(REPO_ROOT, "dist/runtime/resident-client.cjs"),
) as { residentDir(runtimeDir: string, env: NodeJS.ProcessEnv): string | undefined };

/**
 * Waits (at most 5 s) until the resident evaluator a hook call may have used has finished its
 * calls: it answers first and renames the state and appends the log line just after
 * (src/runtime/resident.cts), so a test reading them at once could race it. A call still
 * being answered keeps its claimed request (`q-<id>.busy`) in the evaluator's folder.
 */
export function residentSettled(env: NodeJS.ProcessEnv): void {
  const dir = residentClient.residentDir(resolve(REPO_ROOT, "dist/runtime"), env);
  if (!dir) return;
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; i < 1000; i++) {
    let busy: boolean;
    try {
      busy = readdirSync(dir).some((f) => f.endsWith(".busy"));
    } catch {
      return; // no evaluator folder: nothing was handed over
    }
    if (!busy) return;
    Atomics.wait(sleeper, 0, 0, 5);
  }
}
