import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { NotFoundError } from "../../errors.js";
import { screenPaths } from "../paths.js";
import { checkPlan, readPlan } from "../plan/plan-file.js";
import { type HarborRunSummary, harborRunSummary } from "../run/harbor-progress.js";
import { RunState } from "../run/state.js";
import { readResults } from "./results-file.js";

export interface ScreenStatus {
  name: string;
  planned: boolean;
  /** What changed since planning (empty: intact). */
  planProblems: string[];
  tasks: number;
  cohorts: Record<string, number>;
  arms: string[];
  attempts: number;
  cells: number;
  runner?: "local" | "harbor";
  unitsDone: number;
  unitsFailed: number;
  results: number;
  unscorable: number;
  /**
   * Per arm with stored rows: how many, how many are unscorable and why (reason → count), so
   * an arm whose hook never ran in the sandbox shows at a glance.
   */
  byArm: Record<string, { results: number; unscorable: number; reasons: Record<string, number> }>;
  /**
   * A Harbor run's cost and progress as Harbor reported them in its job result files
   * (run/harbor-progress.ts), recovery runs included; `problems` names a job result file
   * that is not Harbor's (file:line: reason). Absent before any Harbor job wrote one.
   */
  harbor?: HarborRunSummary;
}

/** A screen at a glance (for `fire screen status` and the TUI): plan, run progress, results. */
export async function screenStatus(workspace: string, name: string): Promise<ScreenStatus> {
  const paths = screenPaths(workspace, name);
  if (!existsSync(paths.dir))
    throw new NotFoundError(`no screen ${name}: screens/${name}/ does not exist`);
  const { rows } = await readResults(paths.results);
  const status: ScreenStatus = {
    name,
    planned: existsSync(paths.plan),
    planProblems: [],
    tasks: 0,
    cohorts: {},
    arms: [],
    attempts: 0,
    cells: 0,
    unitsDone: 0,
    unitsFailed: 0,
    results: rows.length,
    unscorable: rows.filter((r) => r.unscorable).length,
    byArm: {},
  };
  for (const r of rows) {
    const a = status.byArm[r.arm] ?? { results: 0, unscorable: 0, reasons: {} };
    status.byArm[r.arm] = a;
    a.results++;
    if (!r.unscorable) continue;
    a.unscorable++;
    a.reasons[r.unscorable] = (a.reasons[r.unscorable] ?? 0) + 1;
  }
  const harbor = harborRunSummary(paths.jobs);
  if (harbor) status.harbor = harbor;
  if (!status.planned) return status;
  const plan = await readPlan(workspace, name);
  status.planProblems = await checkPlan(workspace, plan);
  status.tasks = plan.tasks.length;
  for (const t of plan.tasks) status.cohorts[t.cohort] = (status.cohorts[t.cohort] ?? 0) + 1;
  status.arms = plan.arms.map((a) => a.name);
  status.attempts = plan.attempts;
  status.cells = plan.schedule.length;
  try {
    const state = RunState.safeParse(JSON.parse(await readFile(paths.state, "utf8")));
    if (state.success) {
      status.runner = state.data.runner;
      const units = Object.values(state.data.units);
      status.unitsDone = units.filter((u) => u.status === "done").length;
      status.unitsFailed = units.filter((u) => u.status === "failed").length;
    }
  } catch {
    /* not run yet */
  }
  return status;
}
