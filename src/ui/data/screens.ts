import { renderReportText } from "../../core/report/text.js";
import { loadScreenAnalysis } from "../../core/screen/analysis.js";
import type { ReplayScreen } from "../../core/verdict/replay-screen.js";
import { screenCandidate } from "../../core/verdict/screen-candidate.js";
import type { Workspace } from "../../core/workspace/load.js";
import type { CandidateEntry } from "./candidates.js";

/** Run screens are listed by core (src/core/screen/list.ts). */
export { listRunScreens, type RunScreenEntry } from "../../core/screen/list.js";

/** `fire report NAME` as text: per-arm table, contrasts, Unicode forest plot, funnel, transitions. */
export async function runScreenReport(dir: string, name: string): Promise<string> {
  const { analysis } = await loadScreenAnalysis(dir, name);
  return renderReportText(name, analysis);
}

/** `fire screen replay CANDIDATE`: runs and saves the replay screen (core screenCandidate, as the CLI). */
export async function replayScreen(
  ws: Workspace,
  target: CandidateEntry,
  all: readonly CandidateEntry[],
  signal: AbortSignal,
): Promise<ReplayScreen> {
  if (!target.policy) throw new Error(`${target.rel} does not compile`);
  const pool = all.flatMap((c) => (c.policy ? [c.policy] : []));
  const { screen } = await screenCandidate(ws, target.policy, pool, { signal });
  return screen;
}
