import { join } from "node:path";
import type { ArmName } from "../model/arm.js";
import { screenPaths } from "../screening/paths.js";
import { cohortLookup } from "../screening/plan/cohort-lookup.js";
import { type ImportResult, importScreenResults } from "../screening/results/import.js";
import { planTags } from "../screening/results/plan-markers.js";
import { loadWorkspace } from "../workspace/load.js";

export interface ImportScreenOptions {
  /** Tag every imported attempt with this arm … */
  arm?: ArmName;
  /** … and this replicate. */
  replicate?: number;
  signal?: AbortSignal;
}

/**
 * Reads a Harbor job / trial folder's attempts with the workspace's settings (the importers
 * and the parse cache), for importing or running a screen.
 */
export function screenAttemptLoader(workspace: string) {
  return async (dir: string) => {
    const ws = await loadWorkspace(workspace, { sources: [dir] });
    return { attempts: ws.attempts, errors: ws.errors };
  };
}

/**
 * `fire screen import NAME INPUT`: a CSV / JSONL of results or a folder of Harbor jobs, tagged
 * with the plan's cohorts, the policy's markers and its provider-failure rule when the
 * screen was planned, merged into `screens/<name>/results.jsonl`.
 */
export async function importScreen(
  workspace: string,
  name: string,
  input: string,
  opts: ImportScreenOptions = {},
): Promise<ImportResult> {
  const cohortOf = await cohortLookup(workspace, name);
  return importScreenResults(workspace, name, input, {
    ...(opts.arm ? { arm: opts.arm } : {}),
    ...(opts.replicate !== undefined ? { replicate: opts.replicate } : {}),
    ...(cohortOf ? { cohortOf } : {}),
    ...(await planTags(workspace, name)),
    ...(opts.signal ? { signal: opts.signal } : {}),
    loadAttempts: screenAttemptLoader(workspace),
  });
}

export {
  type LoadedAnalysis,
  loadScreenAnalysis,
  readScreenRows,
} from "../screening/results/analysis.js";
export { type FunnelRow, loadFunnelRows } from "../screening/results/funnel-rows.js";
export { listRunScreens, type RunScreenEntry } from "../screening/results/list.js";
export { type ScreenStatus, screenStatus } from "../screening/results/status.js";

/** Where `fire report NAME --html` writes without a file: beside the screen's results. */
export function screenReportFile(workspace: string, name: string): string {
  return join(screenPaths(workspace, name).dir, "report.html");
}
export {
  renderReportHtml,
  renderReportMarkdown,
  renderReportText,
  toReportJson,
} from "../report/index.js";
