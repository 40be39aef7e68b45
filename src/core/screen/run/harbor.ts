import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { InputError } from "../../errors.js";
import { UsageError } from "../../errors.js";
import type { Attempt } from "../../model/attempt.js";
import { rowsFromAttempts } from "../from-attempts.js";
import { planMarkers } from "../markers.js";
import { screenPaths } from "../paths.js";
import { readIntactPlan } from "../plan-store.js";
import { ResultsWriter } from "../store.js";
import { execShell } from "./exec.js";
import { armHook, hookEnv } from "./hook.js";
import { readRunState, StateWriter } from "./state.js";
import { fillTemplate, shellQuote } from "./template.js";
import type { RunCommon, RunSummary } from "./types.js";

/**
 * Default Harbor command: one job per (replicate, arm), one attempt per task, the arm's hook
 * settings passed to the agent's environment. `{dataset}`, `{agent}`, `{model}` and `{env}`
 * come from `--var`.
 */
export const DEFAULT_HARBOR_TEMPLATE =
  "{harbor!} run -d {dataset} -a {agent} -m {model} --env {env} -k 1 --n-concurrent {concurrency} " +
  "-o {jobsDir} --job-name {jobName} {taskFlags!} --ae FIRE_ARM={arm} --ae FIRE_HOOK_LOG={hookLog}";

export const HARBOR_INSTALL_HINT =
  "Harbor is not installed (or not on PATH). Install it with `uv tool install harbor` (or `pip install harbor`); see https://harborframework.com — or pass --harbor-bin PATH.";

export interface HarborRunOptions extends RunCommon {
  template?: string;
  /** The Harbor executable (default `harbor`). */
  harborBin?: string;
  /** Hook log path as the agent sees it (Harbor mounts the trial's agent/ at /logs/agent). */
  agentHookLog?: string;
  /** Loads the attempts of a finished job folder (the workspace loader). */
  loadAttempts: (dir: string) => Promise<{ attempts: Attempt[]; errors: InputError[] }>;
}

/** Throws a UsageError with install instructions when Harbor cannot be started. */
export function checkHarbor(bin: string): string {
  // Through the shell, so a bin such as `uvx harbor` or `node standin.mjs` works too.
  const r = spawnSync("sh", ["-c", `${bin} --version`], { encoding: "utf8", timeout: 30_000 });
  if (r.error || r.status !== 0) throw new UsageError(HARBOR_INSTALL_HINT);
  return r.stdout.trim();
}

/** Harbor filters tasks by name: the part after the dataset prefix (`source/name`). */
const harborTaskName = (id: string): string => id.slice(id.lastIndexOf("/") + 1);

/**
 * The Harbor runner: for each replicate, the arms in the plan's randomised order, each as
 * one Harbor job over the plan's tasks; the finished job folder is imported with every
 * trial tagged by arm and replicate, integrity-checked and stored. A re-run skips finished
 * jobs and restarts unfinished ones from a clean folder.
 */
export async function runHarborScreen(opts: HarborRunOptions): Promise<RunSummary> {
  const plan = await readIntactPlan(opts.workspace, opts.name);
  const bin = opts.harborBin ?? "harbor";
  checkHarbor(bin);
  const paths = screenPaths(opts.workspace, opts.name);
  const state = new StateWriter(
    paths.state,
    await readRunState(paths.state, plan.hashes.plan, "harbor"),
  );
  const results = new ResultsWriter(paths.results);
  const units = [
    ...new Map(plan.schedule.map((c) => [`r${c.replicate}-${c.arm}`, c])).values(),
  ].sort((a, b) => a.replicate - b.replicate || a.order - b.order);
  const cohortOf = new Map(plan.tasks.map((t) => [t.id, t.cohort]));
  const markers = planMarkers(opts.workspace, plan);
  const taskFlags = plan.tasks
    .map((t) => `--task-name ${shellQuote(harborTaskName(t.id))}`)
    .join(" ");
  const summary: RunSummary = {
    total: units.length,
    done: 0,
    failed: 0,
    skipped: 0,
    aborted: false,
    errors: [],
  };
  const progress = (
    event: "start" | "skip" | "done" | "failed",
    unit: string,
    message?: string,
  ): void =>
    opts.onProgress?.({
      done: summary.done + summary.failed,
      total: summary.total,
      skipped: summary.skipped,
      unit,
      event,
      ...(message ? { message } : {}),
    });

  for (const cell of units) {
    if (opts.signal?.aborted) break;
    const jobName = `r${cell.replicate}-${cell.arm}`;
    if (state.state.units[jobName]?.status === "done") {
      summary.skipped++;
      summary.done++;
      progress("skip", jobName);
      continue;
    }
    progress("start", jobName);
    const jobDir = join(paths.jobs, jobName);
    await rm(jobDir, { recursive: true, force: true });
    await mkdir(paths.jobs, { recursive: true });
    const hook = armHook(
      paths.dir,
      plan,
      cell.arm,
      opts.agentHookLog ?? "/logs/agent/fire-hook-log.jsonl",
      opts.fireBin,
    );
    await opts.installHook?.(hook, opts.signal ? { signal: opts.signal } : {});
    const command = fillTemplate(opts.template ?? DEFAULT_HARBOR_TEMPLATE, {
      concurrency: String(opts.concurrency ?? 4),
      ...opts.vars,
      harbor: bin,
      arm: cell.arm,
      replicate: String(cell.replicate),
      jobsDir: paths.jobs,
      jobName,
      jobDir,
      taskFlags,
      tasks: plan.tasks.map((t) => t.id).join(","),
      portfolio: hook.portfolio ?? "",
      hookLog: hook.logFile,
      hookCommand: hook.command,
    });
    const r = await execShell(command, {
      cwd: opts.workspace,
      env: { ...process.env, ...hookEnv(plan.name, hook, cell.replicate) },
      ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    if (r.aborted) break;
    const failed = async (error: string): Promise<void> => {
      summary.failed++;
      summary.errors.push(`${jobName}: ${error}`);
      await state.mark(jobName, { status: "failed", at: new Date().toISOString(), error });
      progress("failed", jobName, error);
    };
    if (r.code !== 0 || !existsSync(jobDir)) {
      await failed(
        `${r.timedOut ? "timed out" : `harbor exited ${r.code}`}${existsSync(jobDir) ? "" : " without a job folder"}: ${r.tail.trim().slice(-300)}`,
      );
      continue;
    }
    const loaded = await opts.loadAttempts(jobDir);
    const errors = [...loaded.errors];
    const rows = rowsFromAttempts(
      loaded.attempts,
      {
        arm: cell.arm,
        replicate: cell.replicate,
        cohortOf: (t) => cohortOf.get(t),
        markers,
        providerFailures: plan.replacement.providerFailures,
      },
      errors,
    );
    if (rows.length === 0) {
      await failed(
        `no trials imported from ${jobDir}${errors[0] ? `: ${errors[0].format()}` : ""}`,
      );
      continue;
    }
    await results.add(rows);
    await state.mark(jobName, { status: "done", at: new Date().toISOString() });
    summary.done++;
    summary.errors.push(...errors.map((e) => e.format()));
    progress("done", jobName, `${rows.length} trial(s)`);
  }
  summary.aborted = opts.signal?.aborted === true;
  return summary;
}
