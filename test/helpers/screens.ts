import { join } from "node:path";
import { type RunResult, runFire } from "./cli.js";
import { REPO_ROOT } from "./paths.js";

/** The screen fixtures: candidates, stand-in task lists and dataset, local agent script. */
export const SCREEN_FIXTURES = join(REPO_ROOT, "test/fixtures/screens");

/**
 * `fire screen plan NAME` of the report-check candidate over the small stand-in task list in
 * workspace `ws`; `extra` adds plan options (`--arms`, `--attempts`, `--seed`).
 */
export function planReportCheck(
  ws: string,
  name: string,
  extra: readonly string[] = [],
): RunResult {
  return runFire([
    "screen",
    "plan",
    "--candidate",
    join(SCREEN_FIXTURES, "candidates/report-check.yaml"),
    "--tasks",
    join(SCREEN_FIXTURES, "standin-tasks-small.txt"),
    ...extra,
    "--name",
    name,
    "-w",
    ws,
  ]);
}

/**
 * The same plan as `planReportCheck` (baseline and policy arms, one attempt each, the small
 * stand-in task list) through core's planScreen, for tests that need no CLI process.
 */
export async function planReportCheckIn(ws: string, name: string, seed = 1): Promise<void> {
  const { planScreen } = await import("../../src/core/app/plan.js");
  await planScreen({
    workspace: ws,
    source: { kind: "candidate", path: join(SCREEN_FIXTURES, "candidates/report-check.yaml") },
    tasksFile: join(SCREEN_FIXTURES, "standin-tasks-small.txt"),
    cohorts: [],
    arms: ["baseline", "policy"],
    attempts: 1,
    seed,
    name,
  });
}
