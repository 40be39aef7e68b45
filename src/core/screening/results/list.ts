import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { workspacePaths } from "../../workspace/paths.js";
import { isReplayScreenDir } from "../paths.js";
import { readResults } from "./results-file.js";

/** A run screen folder under `screens/` (replay screens have their own: `screens/replay/`). */
export interface RunScreenEntry {
  name: string;
  hasPlan: boolean;
  /** Result rows stored so far (0 when results.jsonl is missing or unreadable). */
  rows: number;
}

/** The workspace's run screens, sorted by name: whether a plan exists, result rows so far. */
export async function listRunScreens(workspace: string): Promise<RunScreenEntry[]> {
  const { screens: root, replayScreens } = workspacePaths(workspace);
  if (!existsSync(root)) return [];
  const out: RunScreenEntry[] = [];
  for (const ent of readdirSync(root, { withFileTypes: true })) {
    if (!ent.isDirectory()) continue;
    const d = join(root, ent.name);
    if (d === replayScreens || isReplayScreenDir(d)) continue;
    const { rows } = await readResults(join(d, "results.jsonl")).catch(() => ({ rows: [] }));
    out.push({ name: ent.name, hasPlan: existsSync(join(d, "plan.json")), rows: rows.length });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}
