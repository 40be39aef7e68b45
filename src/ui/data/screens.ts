import { loadScreenAnalysis, renderReportText } from "../../core/app/results.js";

/** Run screens are listed by core (src/core/screening/results/list.ts). */
export { listRunScreens, type RunScreenEntry } from "../../core/app/results.js";

/** `fire report NAME` as text: per-arm table, contrasts, Unicode forest plot, funnel, transitions. */
export async function runScreenReport(dir: string, name: string): Promise<string> {
  const { analysis, harbor } = await loadScreenAnalysis(dir, name);
  return renderReportText(name, analysis, harbor);
}
