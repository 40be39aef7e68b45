import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { InputError } from "../../errors.js";
import { NotFoundError, UsageError } from "../../errors.js";
import type { Attempt } from "../../model/attempt.js";
import { screenPaths } from "../paths.js";
import { readIntactPlan } from "../plan/plan-file.js";
import { planMarkers } from "../results/plan-markers.js";
import { ResultsWriter } from "../results/results-file.js";
import type { ScreenRow } from "../results/row.js";
import { isProviderFailure, type JobContext, runHarborJob } from "./harbor-job.js";
import type { ArmHook } from "./hook.js";
import {
  CONTAINER_LOG,
  ensureStandaloneHook,
  harborHookFlags,
  type PayloadHarness,
  type RebuildHook,
  writeArmPayload,
} from "./payload.js";
import { preflightPayload } from "./payload-preflight.js";
import { startSummary } from "./progress.js";
import { readRunState, StateWriter } from "./state.js";
import type { RunCommon, RunSummary } from "./types.js";

/**
 * Default Harbor command: one job per (replicate, arm), one attempt per task, `-y` so that
 * Harbor's prompts (host environment access for a task whose env uses `${VAR}`, "Proceed?")
 * never wait on the runner's closed stdin. `{hookFlags!}`
 * is `--mounts '<json>'` delivering the arm's hook payload into the container (see
 * payload.ts; empty for baseline). `{dataset}`, `{agent}`, `{model}` and `{env}` come from
 * `--var`. Also available: `{mounts}` (the JSON alone), `{payloadDir}`, `{hookCommand}`.
 */
export const DEFAULT_HARBOR_TEMPLATE =
  "{harbor!} run -d {dataset} -a {agent} -m {model} --env {env} -k 1 --n-concurrent {concurrency} " +
  "-o {jobsDir} --job-name {jobName} -y {taskFlags!} --ae FIRE_ARM={arm} {hookFlags!}";

export const HARBOR_INSTALL_HINT =
  "Harbor is not installed (or not on PATH). Install it with `uv tool install harbor` (or `pip install harbor`); see https://harborframework.com";

export interface HarborRunOptions extends RunCommon {
  template?: string;
  /** The Harbor executable, run through the shell (default `harbor`). */
  harborBin?: string;
  /** Which agent's settings the payload targets (default claude). */
  harness?: PayloadHarness;
  /** The standalone hook bundle to deliver (default dist/runtime/hook.standalone.mjs). */
  hookFile?: string;
  /** Rebuilds a missing or stale standalone hook (the CLI passes the build's bundler). */
  rebuildHook?: RebuildHook;
  /** Loads the attempts of a finished job folder (the workspace loader). */
  loadAttempts: (dir: string) => Promise<{ attempts: Attempt[]; errors: InputError[] }>;
}

const isDirectory = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/**
 * Throws a NotFoundError about the `harborBin` field, with install instructions, when Harbor
 * cannot be started.
 */
export function checkHarbor(bin: string): string {
  // Through the shell, so a bin such as `uvx harbor` or `node standin.mjs` works too.
  const r = spawnSync("sh", ["-c", `${bin} --version`], { encoding: "utf8", timeout: 30_000 });
  if (r.error || r.status !== 0) throw new NotFoundError(HARBOR_INSTALL_HINT, "harborBin");
  return r.stdout.trim();
}

/**
 * The Harbor runner: for each replicate, the arms in the plan's randomised order, each as
 * one Harbor job over the plan's tasks; trials are imported tagged with arm and replicate,
 * integrity-checked and stored. Provider failures are re-run as recovery jobs (at most the
 * plan's `maxReplacements`); the first fair result replaces the failed one, with the failed
 * trials kept in its `lineage`. A re-run skips finished jobs and restarts unfinished ones.
 */
export async function runHarborScreen(opts: HarborRunOptions): Promise<RunSummary> {
  const plan = await readIntactPlan(opts.workspace, opts.name);
  const bin = opts.harborBin ?? "harbor";
  checkHarbor(bin);
  try {
    await ensureStandaloneHook(opts.hookFile, opts.rebuildHook);
  } catch (err) {
    throw new UsageError(
      `cannot deliver the hook into Harbor's containers: ${(err as Error).message}`,
    );
  }
  // Refuse before any trial when the payload could not start in the containers.
  const dataset = opts.vars?.dataset ?? opts.vars?.path;
  const { runtimes } = preflightPayload({
    plan,
    ...(dataset && isDirectory(resolve(opts.workspace, dataset))
      ? { datasetDir: resolve(opts.workspace, dataset) }
      : {}),
  });
  const paths = screenPaths(opts.workspace, opts.name);
  const state = new StateWriter(
    paths.state,
    await readRunState(paths.state, plan.hashes.plan, "harbor"),
  );
  const results = new ResultsWriter(paths.results);
  const units = [
    ...new Map(plan.schedule.map((c) => [`r${c.replicate}-${c.arm}`, c])).values(),
  ].sort((a, b) => a.replicate - b.replicate || a.order - b.order);
  const ctx: JobContext = {
    plan,
    jobsDir: paths.jobs,
    workspace: opts.workspace,
    bin,
    template: opts.template ?? DEFAULT_HARBOR_TEMPLATE,
    vars: opts.vars ?? {},
    concurrency: opts.concurrency ?? 4,
    ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    markers: planMarkers(opts.workspace, plan),
    loadAttempts: opts.loadAttempts,
  };
  const { summary, progress } = startSummary(units.length, opts.onProgress);
  const taskIds = plan.tasks.map((t) => t.id);

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
    let armVars: Record<string, string>;
    let hook: ArmHook;
    try {
      const payload = writeArmPayload({
        screenDir: paths.dir,
        plan,
        arm: cell.arm,
        harness: opts.harness ?? "claude",
        ...(opts.hookFile ? { hookFile: opts.hookFile } : {}),
        runtimes,
      });
      hook = {
        arm: cell.arm,
        logFile: CONTAINER_LOG,
        command: payload?.command ?? "",
        ...(payload ? { portfolio: payload.dir } : {}),
      };
      armVars = {
        hookFlags: harborHookFlags(payload),
        mounts: JSON.stringify(payload?.mounts ?? []),
        payloadDir: payload?.dir ?? "",
      };
    } catch (err) {
      const error = `hook payload: ${(err as Error).message}`;
      summary.failed++;
      summary.errors.push(`${jobName}: ${error}`);
      await state.mark(jobName, { status: "failed", at: new Date().toISOString(), error });
      progress("failed", jobName, error);
      continue;
    }
    await opts.installHook?.(hook, opts.signal ? { signal: opts.signal } : {});
    const first = await runHarborJob(
      ctx,
      jobName,
      cell.arm,
      cell.replicate,
      taskIds,
      hook,
      armVars,
    );
    if (first.kind === "aborted") break;
    if (first.kind === "failed") {
      summary.failed++;
      summary.errors.push(`${jobName}: ${first.error}`);
      await state.mark(jobName, {
        status: "failed",
        at: new Date().toISOString(),
        error: first.error,
      });
      progress("failed", jobName, first.error);
      continue;
    }
    summary.errors.push(...first.errors.map((e) => e.format()));
    const byTask = new Map<string, ScreenRow>(first.rows.map((r) => [r.task, r]));
    let recoveries = 0;
    for (let rec = 1; rec <= plan.replacement.maxReplacements; rec++) {
      const pending = [...byTask.values()].filter(isProviderFailure);
      if (pending.length === 0 || opts.signal?.aborted) break;
      recoveries = rec;
      const again = await runHarborJob(
        ctx,
        `${jobName}-rec${rec}`,
        cell.arm,
        cell.replicate,
        pending.map((r) => r.task),
        hook,
        armVars,
      );
      if (again.kind !== "done") break; // the failed rows stay unscorable, with their reason
      for (const r of again.rows) {
        const old = byTask.get(r.task);
        if (!old || !isProviderFailure(old)) continue;
        byTask.set(r.task, { ...r, lineage: [...(old.lineage ?? []), old.source ?? old.task] });
      }
    }
    await results.add([...byTask.values()]);
    await state.mark(jobName, {
      status: "done",
      at: new Date().toISOString(),
      ...(recoveries ? { recoveries } : {}),
    });
    summary.done++;
    progress(
      "done",
      jobName,
      `${byTask.size} trial(s)${recoveries ? `, ${recoveries} recovery run(s)` : ""}`,
    );
  }
  summary.aborted = opts.signal?.aborted === true;
  return summary;
}
