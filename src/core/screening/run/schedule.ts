import { readFile } from "node:fs/promises";
import type { ArmName } from "../../model/arm.js";
import type { Cohort } from "../../model/cohort.js";
import { screenPaths } from "../paths.js";
import { readPlan } from "../plan/plan-file.js";
import { readResults } from "../results/results-file.js";
import type { ScreenRow } from "../results/row.js";
import { RunState } from "./state.js";

/** Where one planned trial stands: not run, scored, unscorable, or the runner failed it. */
export type TrialStatus = "pending" | "pass" | "fail" | "unscorable" | "failed";
export const TRIAL_STATUSES: readonly TrialStatus[] = [
  "pending",
  "pass",
  "fail",
  "unscorable",
  "failed",
];

/** One trial of a run screen's plan: task × arm (its policies) × replicate, and its status. */
export interface ScheduleTrial {
  /** `r<replicate>/<arm>/<task>` (the plan cell id). */
  id: string;
  task: string;
  arm: ArmName;
  /** The arm's candidates (id@version); none for baseline. */
  policies: readonly string[];
  replicate: number;
  cohort?: Cohort;
  status: TrialStatus;
  /** Why: the runner's error, the integrity problem, a timeout. */
  detail?: string;
}

export interface ScreenSchedule {
  name: string;
  trials: ScheduleTrial[];
  counts: Record<TrialStatus, number>;
}

const key = (task: string, arm: ArmName, replicate: number) =>
  `${task}\u0000${arm}\u0000${replicate}`;

/**
 * The plan's trials in run order with their status from the stored results (rows without a
 * replicate count for the trials of their task and arm in replicate order) and the runner's
 * state (a failed unit). What `fire screen status` counts, trial by trial.
 */
export async function screenSchedule(workspace: string, name: string): Promise<ScreenSchedule> {
  const paths = screenPaths(workspace, name);
  const plan = await readPlan(workspace, name);
  const { rows } = await readResults(paths.results);
  let units: RunState["units"] = {};
  try {
    const s = RunState.safeParse(JSON.parse(await readFile(paths.state, "utf8")));
    if (s.success) units = s.data.units;
  } catch {
    /* never run by fire */
  }
  const byCell = new Map<string, ScreenRow>();
  const loose = new Map<string, ScreenRow[]>();
  for (const r of rows) {
    if (r.replicate) byCell.set(key(r.task, r.arm, r.replicate), r);
    else {
      const k = `${r.task}\u0000${r.arm}`;
      loose.set(k, [...(loose.get(k) ?? []), r]);
    }
  }
  const policies = new Map(plan.arms.map((a) => [a.name, a.policies]));
  const cohorts = new Map(plan.tasks.map((t) => [t.id, t.cohort]));
  const cells = [...plan.schedule].sort((a, b) => a.replicate - b.replicate || a.order - b.order);
  const counts = Object.fromEntries(TRIAL_STATUSES.map((s) => [s, 0])) as ScreenSchedule["counts"];
  const trials = cells.map((c): ScheduleTrial => {
    const row =
      byCell.get(key(c.task, c.arm, c.replicate)) ?? loose.get(`${c.task}\u0000${c.arm}`)?.shift();
    const unit = units[c.id];
    const t: ScheduleTrial = {
      id: c.id,
      task: c.task,
      arm: c.arm,
      policies: policies.get(c.arm) ?? [],
      replicate: c.replicate,
      status: "pending",
    };
    const cohort = cohorts.get(c.task);
    if (cohort) t.cohort = cohort;
    if (row) {
      t.status = row.unscorable ? "unscorable" : row.pass ? "pass" : "fail";
      if (row.unscorable) t.detail = row.unscorable;
    } else if (unit?.status === "failed") {
      t.status = "failed";
      if (unit.error) t.detail = unit.error;
    }
    counts[t.status]++;
    return t;
  });
  return { name, trials, counts };
}
