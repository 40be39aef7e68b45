import { existsSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { InputError } from "../../errors.js";
import type { ArmName } from "../../model/arm.js";
import type { Attempt } from "../../model/attempt.js";
import type { CompiledPolicy } from "../../policy/types.js";
import { shellQuote } from "../../shell-quote.js";
import type { ScreenPlan } from "../plan/schema.js";
import { rowsFromAttempts } from "../results/from-attempts.js";
import type { ScreenRow } from "../results/row.js";
import { execShell } from "./exec.js";
import { type HarborJobProgress, readHarborJobProgress } from "./harbor-progress.js";
import { type ArmHook, hookEnv } from "./hook.js";
import { fillTemplate } from "./template.js";

/**
 * Harbor's `--include-task-name` matches the trial's `task_name` as Harbor writes it, which
 * is the task id fire imported: `name` for a folder dataset, `org/name` for a package
 * dataset (stripping `org/` matches nothing). Glob characters are escaped (`[*]`), since
 * Harbor takes the value as a glob pattern.
 */
export const harborTaskName = (id: string): string => id.replace(/[*?[\]]/g, (c) => `[${c}]`);

export interface JobContext {
  plan: ScreenPlan;
  jobsDir: string;
  workspace: string;
  bin: string;
  template: string;
  vars: Record<string, string>;
  concurrency: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  markers: CompiledPolicy[];
  /** Extra environment for the Harbor process (the adapter's PYTHONPATH). */
  env?: Record<string, string>;
  loadAttempts: (dir: string) => Promise<{ attempts: Attempt[]; errors: InputError[] }>;
  /** Told Harbor's own progress of the running job (its result.json) whenever it changes. */
  watch?: (p: HarborJobProgress) => void;
  /** How often the job's result.json is read while Harbor runs (default 2 s). */
  pollMs?: number;
}

/**
 * Reads the job's result.json every `pollMs` while Harbor runs and reports each change of its
 * counts or cost; returns the stopper. A file Harbor is rewriting (torn) is skipped.
 */
function watchJob(ctx: JobContext, jobDir: string, jobName: string): () => void {
  const watch = ctx.watch;
  if (!watch) return () => {};
  let last = "";
  const poll = (): void => {
    let p: HarborJobProgress | undefined;
    try {
      p = readHarborJobProgress(jobDir, jobName);
    } catch {
      return; // mid-write or not Harbor's: the next read decides
    }
    if (!p) return;
    const key = JSON.stringify([p.completed, p.errored, p.running, p.total, p.costUsd]);
    if (key === last) return;
    last = key;
    watch(p);
  };
  const timer = setInterval(poll, ctx.pollMs ?? 2000);
  return () => {
    clearInterval(timer);
    poll();
  };
}

export type JobResult =
  | { kind: "aborted" }
  | { kind: "failed"; error: string }
  | { kind: "done"; rows: ScreenRow[]; errors: InputError[] };

/**
 * Harbor's own resume of an interrupted job (`cli/jobs.py` `resume`): it re-reads the job's
 * config.json (agent, import path, kwargs, environment), keeps every finished trial and runs
 * the rest. Trials already paid for are not paid again.
 */
export const HARBOR_RESUME_TEMPLATE = "{harbor!} jobs resume -p {jobDir}";

/** A job folder an interrupted Harbor left behind: Harbor writes config.json at its start. */
export const resumableJob = (jobDir: string): boolean => existsSync(join(jobDir, "config.json"));

/**
 * Runs one Harbor job (one arm, one replicate, the given tasks) from a clean job folder —
 * or, with `resume`, continues the job folder an interrupted run left — and imports its
 * trials tagged with arm, replicate, cohort, markers and integrity.
 */
export async function runHarborJob(
  ctx: JobContext,
  jobName: string,
  arm: ArmName,
  replicate: number,
  taskIds: readonly string[],
  hook: ArmHook,
  armVars: Record<string, string> = {},
  resume = false,
): Promise<JobResult> {
  const jobDir = join(ctx.jobsDir, jobName);
  if (!resume) await rm(jobDir, { recursive: true, force: true });
  await mkdir(ctx.jobsDir, { recursive: true });
  const command = fillTemplate(resume ? HARBOR_RESUME_TEMPLATE : ctx.template, {
    concurrency: String(ctx.concurrency),
    ...ctx.vars,
    harbor: ctx.bin,
    arm,
    replicate: String(replicate),
    jobsDir: ctx.jobsDir,
    jobName,
    jobDir,
    taskFlags: taskIds.map((t) => `--include-task-name ${shellQuote(harborTaskName(t))}`).join(" "),
    tasks: taskIds.join(","),
    portfolio: hook.portfolio ?? "",
    hookLog: hook.logFile,
    hookCommand: hook.command,
    agentFlags: "",
    hookFlags: "",
    mounts: "[]",
    payloadDir: "",
    ...armVars,
  });
  const stopWatching = watchJob(ctx, jobDir, jobName);
  const r = await execShell(command, {
    cwd: ctx.workspace,
    env: { ...process.env, ...ctx.env, ...hookEnv(ctx.plan.name, hook, replicate) },
    ...(ctx.timeoutMs ? { timeoutMs: ctx.timeoutMs } : {}),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  }).finally(stopWatching);
  if (r.aborted) return { kind: "aborted" };
  if (r.code !== 0 || !existsSync(jobDir)) {
    const why = r.timedOut ? "timed out" : `harbor exited ${r.code}`;
    const noDir = existsSync(jobDir) ? "" : " without a job folder";
    return { kind: "failed", error: `${why}${noDir}: ${r.tail.trim().slice(-300)}` };
  }
  const loaded = await ctx.loadAttempts(jobDir);
  const errors = [...loaded.errors];
  const cohorts = new Map(ctx.plan.tasks.map((t) => [t.id, t.cohort]));
  const rows = rowsFromAttempts(
    loaded.attempts,
    {
      arm,
      replicate,
      cohortOf: (t) => cohorts.get(t),
      markers: ctx.markers,
      providerFailures: ctx.plan.replacement.providerFailures,
    },
    errors,
  );
  if (rows.length === 0) {
    return {
      kind: "failed",
      error: `no trials imported from ${jobDir}${errors[0] ? `: ${errors[0].format()}` : ""}`,
    };
  }
  return { kind: "done", rows, errors };
}

export const isProviderFailure = (r: ScreenRow): boolean =>
  r.unscorable?.startsWith("provider failure") === true;
