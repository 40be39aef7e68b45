import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./paths.js";

/**
 * The demo workspace's counts, derived from its own files — the generated corpus's manifest
 * (`traces/generated/manifest.json`) and the real trials in `traces/harbor-openclaw/` — so a
 * change to the generator or to the shipped trials changes them here, not in every test.
 */
function demoCounts(): { attempts: number; tasks: number; generated: number; real: number } {
  const manifest = JSON.parse(
    readFileSync(join(REPO_ROOT, "traces/generated/manifest.json"), "utf8"),
  ) as { tasks: { taskId: string; attemptDetails: unknown[] }[] };
  const generated = manifest.tasks.reduce((n, t) => n + t.attemptDetails.length, 0);
  const tasks = new Set(manifest.tasks.map((t) => t.taskId));
  const jobs = join(REPO_ROOT, "traces/harbor-openclaw");
  let real = 0;
  for (const job of readdirSync(jobs, { withFileTypes: true })) {
    if (!job.isDirectory()) continue;
    for (const trial of readdirSync(join(jobs, job.name), { withFileTypes: true })) {
      const result = join(jobs, job.name, trial.name, "result.json");
      if (!trial.isDirectory() || !existsSync(result)) continue;
      real++;
      tasks.add((JSON.parse(readFileSync(result, "utf8")) as { task_name: string }).task_name);
    }
  }
  return { attempts: generated + real, tasks: tasks.size, generated, real };
}

export const DEMO = demoCounts();
/** The workbench header's count of the demo's attempts ("95 attempts" today). */
export const DEMO_ATTEMPTS = `${DEMO.attempts} attempts`;
