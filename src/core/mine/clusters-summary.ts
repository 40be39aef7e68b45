import { createHash } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { workspacePaths } from "../workspace/paths.js";
import { readStamped, writeStamped } from "../workspace/stamped-cache.js";
import { fileStamp } from "./mining-cache.js";
import type { MineSummary } from "./render.js";

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
  return createHash("sha256")
    .update(
      JSON.stringify({
        v: VERSION,
        mining: miningKey,
        decisions: fileStamp(workspacePaths(dir).decisions),
      }),
    )
    .digest("hex");
}

/** The summary stored under `key`, only when its bytes are the ones fire wrote. */
export function readClustersSummary(dir: string, key: string): MineSummary | undefined {
  try {
    const { value, trusted } = readStamped(workspacePaths(dir).clustersSummary);
    const stored = value as { v?: unknown; key?: unknown; summary?: MineSummary } | null;
    if (!trusted || stored?.v !== VERSION || stored.key !== key || !stored.summary)
      return undefined;
    return stored.summary;
  } catch {
    return undefined;
  }
}

/** Stores the summary under `key`; failing to write only means the next read computes it. */
export async function writeClustersSummary(
  dir: string,
  key: string,
  summary: MineSummary,
): Promise<void> {
  const file = workspacePaths(dir).clustersSummary;
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeStamped(file, JSON.stringify({ v: VERSION, key, summary }));
  } catch {
    /* no summary: the next read computes it again */
  }
}
