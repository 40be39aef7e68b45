import type { ScreenStatus } from "./status.js";

/**
 * The run line of a screen's status (`fire screen status`, the Screens screen): a run by
 * fire (its runner and units), else results imported from elsewhere, else not started.
 */
export function runSummary(s: ScreenStatus): string {
  const rows = `${s.results} result row(s)`;
  if (s.runner)
    return `${s.runner}: ${s.unitsDone} unit(s) done, ${s.unitsFailed} failed; ${rows} stored`;
  if (s.results > 0)
    return `not run by fire: ${rows} imported${s.cells ? ` for ${s.cells} planned cell(s)` : ""}`;
  return "not started";
}
