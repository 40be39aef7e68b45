import { existsSync, readFileSync } from "node:fs";
import { cp, mkdir, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import pLimit from "p-limit";
import { parseHookLog } from "../../hook-log.js";
import { screenPaths } from "../paths.js";
import { readIntactPlan } from "../plan/plan-file.js";
import type { PlanCell, ScreenPlan } from "../plan/schema.js";
import { TRIAL_HOOK_LOG } from "../results/from-attempts.js";
import { hookEvidence, integrityProblem } from "../results/integrity.js";
import { ResultsWriter } from "../results/results-file.js";
import type { ScreenRow } from "../results/row.js";
import { type ExecResult, execShell } from "./exec.js";
import { armHook, hookEnv } from "./hook.js";
import { startSummary } from "./progress.js";
import { readRunState, StateWriter } from "./state.js";
import { fillTemplate } from "./template.js";
import type { RunCommon, RunSummary } from "./types.js";

export interface LocalRunOptions extends RunCommon {
  /** Shell command template run once per (task, arm, attempt); exit 0 = pass. */
  template: string;
  /** Folder copied into each attempt's fresh working copy (empty folder when absent). */
  copyFrom?: string;
}

/** Exit status a local command uses for a provider failure (sysexits EX_TEMPFAIL). */
export const PROVIDER_FAILURE_EXIT = 75;

const slug = (task: string): string => task.replace(/[^A-Za-z0-9._-]+/g, "_");

/** The trial folder of one cell: `jobs/local/r<rep>/<arm>/<task>`. */
export function localTrialDir(jobs: string, cell: PlanCell): string {
  return join(jobs, "local", `r${cell.replicate}`, cell.arm, slug(cell.task));
}

function scoreCell(
  plan: ScreenPlan,
  cell: PlanCell,
  trialDir: string,
  pass: boolean,
  durationS: number,
): ScreenRow {
  const logFile = join(trialDir, TRIAL_HOOK_LOG);
  const evidence = existsSync(logFile)
    ? hookEvidence(parseHookLog(readFileSync(logFile, "utf8"), logFile).entries)
    : undefined;
  const row: ScreenRow = {
    task: cell.task,
    arm: cell.arm,
    attempt: 1,
    replicate: cell.replicate,
    pass,
    durationS,
    source: trialDir,
  };
  const cohort = plan.tasks.find((t) => t.id === cell.task)?.cohort;
  if (cohort) row.cohort = cohort;
  if (evidence) row.fired = evidence.firings > 0;
  const problem = integrityProblem(cell.arm, evidence);
  if (problem) row.unscorable = problem;
  return row;
}

/**
 * The local runner: every planned cell runs the user's command in a fresh working copy
 * with the arm's hook (FIRE_* env, optional installer), at most `concurrency` at once,
 * each within `timeoutMs`. Finished cells are recorded as they end, so a re-run skips
 * them; an abort stops running commands and leaves every finished cell stored. Exit 75 is
 * a provider failure: the cell is re-run (at most the plan's `maxReplacements` times) and
 * the first fair result is kept, with the failed trial folders in its `lineage`.
 */
export async function runLocalScreen(opts: LocalRunOptions): Promise<RunSummary> {
  const plan = await readIntactPlan(opts.workspace, opts.name);
  const paths = screenPaths(opts.workspace, opts.name);
  const state = new StateWriter(
    paths.state,
    await readRunState(paths.state, plan.hashes.plan, "local"),
  );
  const results = new ResultsWriter(paths.results);
  const cells = [...plan.schedule].sort((a, b) => a.replicate - b.replicate || a.order - b.order);
  const { summary, progress } = startSummary(cells.length, opts.onProgress);

  /** One attempt of a cell in a fresh trial folder and working copy. */
  const attempt = async (cell: PlanCell, trialDir: string): Promise<ExecResult> => {
    const workdir = join(trialDir, "work");
    await rm(trialDir, { recursive: true, force: true });
    await mkdir(join(trialDir, "agent"), { recursive: true });
    if (opts.copyFrom) await cp(resolve(opts.copyFrom), workdir, { recursive: true });
    else await mkdir(workdir, { recursive: true });
    const hook = armHook(paths.dir, plan, cell.arm, join(trialDir, TRIAL_HOOK_LOG), opts.fireBin);
    await opts.installHook?.(hook, { workdir, ...(opts.signal ? { signal: opts.signal } : {}) });
    const env = {
      ...hookEnv(plan.name, hook, cell.replicate),
      FIRE_TASK: cell.task,
      FIRE_TRIAL_DIR: trialDir,
    };
    const command = fillTemplate(opts.template, {
      ...opts.vars,
      task: cell.task,
      arm: cell.arm,
      replicate: String(cell.replicate),
      attempt: String(cell.replicate),
      workdir,
      trialDir,
      portfolio: hook.portfolio ?? "",
      hookLog: hook.logFile,
      hookCommand: hook.command,
    });
    return execShell(command, {
      cwd: workdir,
      env: { ...process.env, ...env },
      ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
  };

  const limit = pLimit(Math.max(1, opts.concurrency ?? 1));
  await Promise.all(
    cells.map((cell) =>
      limit(async () => {
        if (opts.signal?.aborted) return;
        if (state.state.units[cell.id]?.status === "done") {
          summary.skipped++;
          summary.done++;
          progress("skip", cell.id);
          return;
        }
        progress("start", cell.id);
        const lineage: string[] = [];
        let trialDir = resolve(localTrialDir(paths.jobs, cell));
        let r = await attempt(cell, trialDir);
        // Provider failure (exit 75, EX_TEMPFAIL): re-run under the plan's replacement rule.
        for (
          let rec = 1;
          r.code === PROVIDER_FAILURE_EXIT && rec <= plan.replacement.maxReplacements;
          rec++
        ) {
          lineage.push(trialDir);
          trialDir = `${resolve(localTrialDir(paths.jobs, cell))}-rec${rec}`;
          r = await attempt(cell, trialDir);
        }
        if (r.aborted) return; // unfinished: a re-run does this cell again
        if (r.code === null && !r.timedOut) {
          summary.failed++;
          const error = `could not run the command: ${r.tail.trim().slice(-300)}`;
          summary.errors.push(`${cell.id}: ${error}`);
          await state.mark(cell.id, { status: "failed", at: new Date().toISOString(), error });
          progress("failed", cell.id, error);
          return;
        }
        const row = scoreCell(plan, cell, trialDir, r.code === 0 && !r.timedOut, r.durationS);
        if (lineage.length) row.lineage = lineage;
        if (r.code === PROVIDER_FAILURE_EXIT)
          row.unscorable = `provider failure (exit ${PROVIDER_FAILURE_EXIT})`;
        await results.add([row]);
        await state.mark(cell.id, {
          status: "done",
          at: new Date().toISOString(),
          ...(lineage.length ? { recoveries: lineage.length } : {}),
        });
        summary.done++;
        progress("done", cell.id, r.timedOut ? "timed out (scored as a fail)" : undefined);
      }),
    ),
  );
  summary.aborted = opts.signal?.aborted === true;
  return summary;
}
