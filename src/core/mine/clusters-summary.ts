import { handOutcomesOf, readHandMarks } from "../workspace/hand-outcomes.js";
import type { Workspace } from "../workspace/load.js";
import { workspacePaths } from "../workspace/paths.js";
import { keyOf, readKeyed, writeKeyed } from "../workspace/stamped-cache.js";
import { lastLabeler } from "./label-cache.js";
import { fileStamp } from "./mining-cache.js";
import { miningKeyOf } from "./mining-key.js";
import { type MineSummary, summarizeMine } from "./render.js";

/**
 * What `fire clusters` last showed (`MineSummary`: the clusters with the user's decisions
 * applied and the counts of the text), kept beside the mining cache
 * (`.fire/cache/clusters-summary.json`, safe to delete): a few KB where the mining cache holds
 * every label, hit and both triages (12 MB at 10,000 attempts). Keyed by the mining cache's
 * key (attempts, label store, hand outcomes, config, code of core/) and the decisions file's
 * stamp, and served only while both are unchanged; anything else is computed again.
 */
const VERSION = 1;

/** The summary's key: the mining cache's key and the decisions file as it is now. */
export function clustersSummaryKey(dir: string, miningKey: string): string {
  return keyOf({
    v: VERSION,
    mining: miningKey,
    decisions: fileStamp(workspacePaths(dir).decisions),
  });
}

/** The summary stored under `key`, only when its bytes are the ones fire wrote. */
export function readClustersSummary(dir: string, key: string): MineSummary | undefined {
  return readKeyed<MineSummary>(workspacePaths(dir).clustersSummary, VERSION, key);
}

/** Stores the summary under `key`; failing to write only means the next read computes it. */
export function writeClustersSummary(dir: string, key: string, summary: MineSummary) {
  return writeKeyed(workspacePaths(dir).clustersSummary, VERSION, key, summary);
}

/** The key of `currentSummary` as the workspace is now (undefined: nothing mined, no index). */
async function summaryKey(
  ws: Pick<Workspace, "dir" | "config" | "index">,
): Promise<string | undefined> {
  const labeler = await lastLabeler(ws.dir);
  if (!labeler) return undefined;
  const key = miningKeyOf(ws, labeler, handOutcomesOf(await readHandMarks(ws.dir)));
  return key && clustersSummaryKey(ws.dir, key);
}

/**
 * What the text of `fire clusters` shows of `currentClusters` (`summarizeMine`): read from
 * its small file while nothing it depends on changed (the decisions included), so a read
 * neither parses the whole mining result nor loads the mining code; computed and stored
 * otherwise. Undefined when nothing was mined yet.
 */
export async function currentSummary(ws: Workspace): Promise<MineSummary | undefined> {
  const key = await summaryKey(ws);
  const cached = key ? readClustersSummary(ws.dir, key) : undefined;
  if (cached) return cached;
  const { currentClusters } = await import("./run-mining.js");
  const r = await currentClusters(ws);
  if (!r) return undefined;
  const summary = summarizeMine(r);
  // stored only when nothing it read changed meanwhile (a decision made during the read)
  if (key && (await summaryKey(ws)) === key) await writeClustersSummary(ws.dir, key, summary);
  return summary;
}
