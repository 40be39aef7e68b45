import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { renderReportText } from "../../core/report/text.js";
import { loadScreenAnalysis } from "../../core/screen/analysis.js";
import { readResults } from "../../core/screen/store.js";
import type { ReplayScreen } from "../../core/verdict/replay-screen.js";
import { screenCandidate } from "../../core/verdict/screen-candidate.js";
import type { Workspace } from "../../core/workspace/load.js";
import type { CandidateEntry } from "./candidates.js";

/** A run screen folder under `screens/` (replay screens are listed per candidate instead). */
export interface RunScreenEntry {
  name: string;
  hasPlan: boolean;
  rows: number;
}

/** Run screens of the workspace: plan present, result rows so far. */
export async function listRunScreens(dir: string): Promise<RunScreenEntry[]> {
  const root = join(dir, "screens");
  if (!existsSync(root)) return [];
  const out: RunScreenEntry[] = [];
  for (const ent of readdirSync(root, { withFileTypes: true })) {
    if (!ent.isDirectory() || ent.name.startsWith("replay-")) continue;
    const d = join(root, ent.name);
    const { rows } = await readResults(join(d, "results.jsonl")).catch(() => ({ rows: [] }));
    out.push({ name: ent.name, hasPlan: existsSync(join(d, "plan.json")), rows: rows.length });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}

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
