import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { describeZodIssues, InputError, parseJsonText } from "../../errors.js";
import { ARM_NAMES, type ArmName } from "../../model/arm.js";
import { lineOf } from "../../policy/load.js";

/**
 * Cost and progress as Harbor reports them. Harbor rewrites a job's `result.json` while the
 * job runs (`job.py`: on every trial start, completion and cancellation) with
 * `n_total_trials` and `stats` (`models/job/result.py` `JobStats`): trial counts
 * (`n_completed_trials`, `n_errored_trials`, `n_running_trials`, `n_pending_trials`,
 * `n_cancelled_trials`, `n_retries`) and the sums of its trials' `agent_result`
 * (`n_input_tokens`, `n_cache_tokens`, `n_output_tokens`, `cost_usd`; null when no trial
 * reported one). Older Harbor wrote `n_trials` / `n_errors`, which Harbor itself still reads
 * as the completed and errored counts, and so does this. fire reads these files as they are;
 * it computes no price of its own. (The importer's schema of the same file,
 * ingest/harbor-schema.ts, reads only its identity; this one reads its progress.)
 */
const count = z.number().int().nonnegative();
const HarborJobStats = z.looseObject({
  n_completed_trials: count.optional(),
  n_trials: count.optional(),
  n_errored_trials: count.optional(),
  n_errors: count.optional(),
  n_running_trials: count.optional(),
  n_pending_trials: count.optional(),
  n_cancelled_trials: count.optional(),
  n_retries: count.optional(),
  n_input_tokens: count.nullish(),
  n_cache_tokens: count.nullish(),
  n_output_tokens: count.nullish(),
  cost_usd: z.number().nonnegative().nullish(),
});
export const HarborJobProgressFile = z.looseObject({
  n_total_trials: count.optional(),
  started_at: z.string().nullish(),
  updated_at: z.string().nullish(),
  finished_at: z.string().nullish(),
  stats: HarborJobStats.nullish(),
});

/** One Harbor job of a run screen, as its result.json reports it. */
export interface HarborJobProgress {
  job: string;
  /** From fire's job name `r<replicate>-<arm>[-rec<n>]`; absent for another name. */
  arm?: ArmName;
  replicate?: number;
  /** The recovery run's number (provider failures run again). */
  recovery?: number;
  total: number;
  completed: number;
  errored: number;
  running: number;
  pending: number;
  /** Harbor wrote `finished_at`: the job ended (an interrupted job has none). */
  finished: boolean;
  /** Absent when no trial of the job reported a cost. */
  costUsd?: number;
  tokens: { input?: number; cache?: number; output?: number };
}

const JOB_NAME = new RegExp(`^r([1-9]\\d{0,5})-(${ARM_NAMES.join("|")})(?:-rec([1-9]\\d{0,3}))?$`);

/** A job folder's progress; undefined before Harbor wrote its result.json. Throws InputError. */
export function readHarborJobProgress(jobDir: string, job: string): HarborJobProgress | undefined {
  const file = join(jobDir, "result.json");
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, "utf8");
  const r = HarborJobProgressFile.safeParse(parseJsonText(text, file));
  if (!r.success) {
    const first = r.error.issues[0];
    throw new InputError(
      file,
      first ? lineOf(text, first.path) : undefined,
      `not a Harbor job result: ${describeZodIssues(r.error.issues)}`,
    );
  }
  const s = r.data.stats ?? {};
  const completed = s.n_completed_trials ?? s.n_trials ?? 0;
  const running = s.n_running_trials ?? 0;
  const total = r.data.n_total_trials ?? completed + running + (s.n_pending_trials ?? 0);
  const m = JOB_NAME.exec(job);
  const tokens: HarborJobProgress["tokens"] = {};
  if (typeof s.n_input_tokens === "number") tokens.input = s.n_input_tokens;
  if (typeof s.n_cache_tokens === "number") tokens.cache = s.n_cache_tokens;
  if (typeof s.n_output_tokens === "number") tokens.output = s.n_output_tokens;
  return {
    job,
    ...(m ? { arm: m[2] as ArmName, replicate: Number(m[1]) } : {}),
    ...(m?.[3] ? { recovery: Number(m[3]) } : {}),
    total,
    completed,
    errored: s.n_errored_trials ?? s.n_errors ?? 0,
    running,
    pending: s.n_pending_trials ?? Math.max(total - completed - running, 0),
    finished: typeof r.data.finished_at === "string" && r.data.finished_at !== "",
    ...(typeof s.cost_usd === "number" ? { costUsd: s.cost_usd } : {}),
    tokens,
  };
}

export interface HarborTotals {
  jobs: number;
  total: number;
  completed: number;
  errored: number;
  running: number;
  pending: number;
  /** Sum over the jobs that reported a cost; absent when none did. */
  costUsd?: number;
  /** Jobs with completed trials but no cost reported (the sum leaves them out). */
  jobsWithoutCost: number;
  tokens: { input?: number; cache?: number; output?: number };
}

export interface HarborRunProgress extends HarborTotals {
  jobList: HarborJobProgress[];
  /** Per arm, recovery runs included: what that arm's trials cost and how far they are. */
  byArm: Partial<Record<ArmName, HarborTotals>>;
  /** Job result files that are not Harbor's (file:line: reason). */
  errors: InputError[];
}

const emptyTotals = (): HarborTotals => ({
  jobs: 0,
  total: 0,
  completed: 0,
  errored: 0,
  running: 0,
  pending: 0,
  jobsWithoutCost: 0,
  tokens: {},
});

function add(t: HarborTotals, j: HarborJobProgress): void {
  t.jobs++;
  t.total += j.total;
  t.completed += j.completed;
  t.errored += j.errored;
  t.running += j.running;
  t.pending += j.pending;
  if (j.costUsd !== undefined) t.costUsd = (t.costUsd ?? 0) + j.costUsd;
  else if (j.completed > 0) t.jobsWithoutCost++;
  for (const k of ["input", "cache", "output"] as const) {
    const v = j.tokens[k];
    if (v !== undefined) t.tokens[k] = (t.tokens[k] ?? 0) + v;
  }
}

/**
 * Every Harbor job folder under a screen's `jobs/`: cost, tokens and trial counts summed over
 * all of them (recovery runs are paid too) and per arm. A file that is not Harbor's job
 * result is reported in `errors` and left out of the sums.
 */
export function harborRunProgress(jobsDir: string): HarborRunProgress {
  const out: HarborRunProgress = { ...emptyTotals(), jobList: [], byArm: {}, errors: [] };
  if (!existsSync(jobsDir)) return out;
  for (const job of readdirSync(jobsDir).sort()) {
    const dir = join(jobsDir, job);
    if (!statSync(dir).isDirectory()) continue;
    let p: HarborJobProgress | undefined;
    try {
      p = readHarborJobProgress(dir, job);
    } catch (err) {
      if (err instanceof InputError) {
        out.errors.push(err);
        continue;
      }
      throw err;
    }
    if (!p) continue;
    out.jobList.push(p);
    add(out, p);
    if (p.arm) {
      const arm = out.byArm[p.arm] ?? emptyTotals();
      out.byArm[p.arm] = arm;
      add(arm, p);
    }
  }
  return out;
}

/** A run's Harbor figures for status and report: the sums, with bad files as `file:line: reason`. */
export type HarborRunSummary = Omit<HarborRunProgress, "errors"> & { problems: string[] };

/** The screen's Harbor figures; undefined when no Harbor job wrote a result file. */
export function harborRunSummary(jobsDir: string): HarborRunSummary | undefined {
  const { errors, ...rest } = harborRunProgress(jobsDir);
  if (rest.jobs === 0 && errors.length === 0) return undefined;
  return { ...rest, problems: errors.map((e) => e.format()) };
}

/** `12/87 trials, 1 errored, 3 running, $4.21` (the cost only where Harbor reported one). */
export function harborProgressText(p: HarborTotals | HarborJobProgress): string {
  const parts = [`${p.completed}/${p.total} trial(s)`];
  if (p.errored) parts.push(`${p.errored} errored`);
  if (p.running) parts.push(`${p.running} running`);
  if (p.costUsd !== undefined) parts.push(`$${p.costUsd.toFixed(2)}`);
  return parts.join(", ");
}
