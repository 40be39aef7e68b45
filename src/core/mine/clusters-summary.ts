import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { coreCodeStamp } from "../workspace/code-stamp.js";
import { attemptsDigest } from "../workspace/head.js";
import type { Workspace } from "../workspace/load.js";
import { workspacePaths } from "../workspace/paths.js";
import {
  fileStamp,
  keyOf,
  readKeyed,
  readKeyedBytes,
  writeKeyed,
  writeKeyedBytes,
} from "../workspace/stamped-cache.js";
import type { Cluster } from "./cluster.js";
import {
  addTallies,
  type ClusterTally,
  clusterId,
  describeTallied,
  detectorCounts,
  keptTally,
  sortClusters,
} from "./cluster-tally.js";
import { labelStorePath, lastLabeler } from "./label-paths.js";
import type { MineSummary } from "./render.js";

/**
 * What `fire clusters` last showed (`MineSummary`: the clusters with the user's decisions
 * applied and the counts of the text), kept beside the mining cache
 * (`.fire/cache/clusters-summary.json`, safe to delete): a few KB where the mining cache holds
 * every label, hit and both triages (12 MB at 10,000 attempts). Keyed by what the clusters
 * are computed from — the attempts (the index's digest), the labeller and its label store,
 * the hand outcomes and decisions files (by stamp), the config and the code of core/ — and
 * served only while all are unchanged; anything else is computed again. The key reads no
 * file's content, so a read command computes it without loading any schema.
 */
const VERSION = 3;

type Keyed = Pick<Workspace, "dir" | "config" | "index" | "digest">;

/** What the summary's key is made of, for a workspace as it is now and its labeller. */
export type SummaryKeyParts = Record<string, unknown> & { decisions: string };

/** The parts of `clustersSummaryKey` (the decisions file's stamp among them). */
export function clustersSummaryKeyParts(
  ws: Keyed,
  labeler: "llm" | "heuristic",
): SummaryKeyParts | undefined {
  const digest = attemptsDigest(ws);
  if (!digest) return undefined;
  const paths = workspacePaths(ws.dir);
  return {
    v: VERSION,
    code: coreCodeStamp(),
    digest,
    labeler,
    store: fileStamp(labelStorePath(ws.dir, labeler)),
    hand: fileStamp(paths.handOutcomes),
    decisions: fileStamp(paths.decisions),
    config: ws.config,
  };
}

/** The summary's key for a workspace as it is now and the labeller whose labels it shows. */
export function clustersSummaryKey(ws: Keyed, labeler: "llm" | "heuristic"): string | undefined {
  const parts = clustersSummaryKeyParts(ws, labeler);
  return parts && keyOf(parts);
}

/** The summary stored under `key`, only when its bytes are the ones fire wrote. */
export function readClustersSummary(dir: string, key: string): MineSummary | undefined {
  return readKeyed<MineSummary>(workspacePaths(dir).clustersSummary, VERSION, key);
}

/**
 * A summary as the bytes of its JSON, as kept (`summaryAside`): moved under another key
 * without being parsed or written out again.
 */
export interface SummaryBytes {
  bytes: Buffer;
}

/** Stores the summary under `key`; failing to write only means the next read computes it. */
export function writeClustersSummary(
  dir: string,
  key: string,
  summary: MineSummary | SummaryBytes,
) {
  const file = workspacePaths(dir).clustersSummary;
  return "bytes" in summary
    ? writeKeyedBytes(file, VERSION, key, summary.bytes)
    : writeKeyed(file, VERSION, key, summary);
}

/** The key of `currentSummary` as the workspace is now (undefined: nothing mined, no index). */
async function summaryKey(ws: Keyed): Promise<string | undefined> {
  const labeler = await lastLabeler(ws.dir);
  return labeler && clustersSummaryKey(ws, labeler);
}

/** The summary kept for the workspace as it is now, if any (no mining code, no schema). */
export async function cachedSummary(ws: Keyed): Promise<MineSummary | undefined> {
  return (await keptSummary(ws))?.summary;
}

/**
 * The parts of the key of the summary kept for the workspace as it is now, when there is one
 * (its bytes checked, not parsed): for an undo, which takes another summary back.
 */
export async function keptSummaryParts(ws: Keyed): Promise<SummaryKeyParts | undefined> {
  const labeler = await lastLabeler(ws.dir);
  const parts = labeler && clustersSummaryKeyParts(ws, labeler);
  const file = workspacePaths(ws.dir).clustersSummary;
  return parts && readKeyedBytes(file, VERSION, keyOf(parts)) ? parts : undefined;
}

/** `cachedSummary` with the parts of the key it is kept under. */
export async function keptSummary(
  ws: Keyed,
): Promise<{ summary: MineSummary; parts: SummaryKeyParts } | undefined> {
  const labeler = await lastLabeler(ws.dir);
  const parts = labeler && clustersSummaryKeyParts(ws, labeler);
  const summary = parts && readClustersSummary(ws.dir, keyOf(parts));
  return summary ? { summary, parts } : undefined;
}

/**
 * The summary after a rename of `cluster` (one of its clusters) to `name` is appended to the
 * decisions it applied: what computing it again gives. Decisions replay in order, and the
 * rename, the last, names the group whose members best overlap its own — the cluster's
 * members exactly, as groups are disjoint — and changes its name only (apply-decisions.ts).
 */
export function renamedInSummary(
  summary: MineSummary,
  cluster: Cluster,
  name: string,
): MineSummary {
  return {
    ...summary,
    clusters: summary.clusters.map((c) => (c === cluster ? { ...c, name, named: true } : c)),
  };
}

/**
 * The summary after an exclude of `cluster`'s members (`cluster` one of its clusters) with
 * `reason` is appended to the decisions it applied, when the caller has made sure of what
 * this takes (kept-decisions.ts `excludeInKeptSummary`): what computing it again gives.
 * Decisions replay in order, and the exclude, the last, removes its members from the one
 * group holding them (groups are disjoint), which then is gone; the other clusters stay as
 * they were, in their order (a total one: sortClusters), and the members join the user's
 * exclusions (by attempt id). The review list is unchanged (the members were clustered, and
 * now are excluded), and so are the counts, the labeller's exclusions among them: triage
 * gives the user's reason instead of the labeller's only to an attempt whose label excludes
 * it, and no clustered attempt's does unless a split put it there.
 */
export function excludedInSummary(
  summary: MineSummary,
  cluster: Cluster,
  reason: string,
): MineSummary {
  const excluded = new Map(summary.userExcluded.map((e) => [e.attemptId, e.reason]));
  for (const id of cluster.attemptIds) excluded.set(id, reason);
  const { [cluster.id]: _gone, ...tallies } = summary.tallies;
  return {
    ...summary,
    clusters: summary.clusters.filter((c) => c !== cluster),
    tallies,
    userExcluded: [...excluded.entries()]
      .map(([attemptId, reason]) => ({ attemptId, reason }))
      .sort((a, b) => (a.attemptId < b.attemptId ? -1 : 1)),
  };
}

/**
 * The summary after a merge of `clusters` (two or more of its clusters, the first the one
 * the merge keeps) named `name` is appended to the decisions it applied: what computing it
 * again gives, or undefined when a cluster's tally is not kept. Decisions replay in order,
 * and the merge, the last, finds each cluster's group by its members exactly (groups are
 * disjoint), adds the others' members to the first's and names it `name`, else keeps the
 * first's own name if the user gave it one (apply-decisions.ts). The union is described as
 * `describeCluster` describes it: its counts are the clusters' tallies added, its tasks and
 * detectors theirs together, and its evidence the first three by attempt id of theirs (an
 * attempt among the union's first three with an excerpt is among its own cluster's). No
 * exclusion, review or count changes; the clusters stay in their (total) order.
 */
export function mergedInSummary(
  summary: MineSummary,
  clusters: readonly Cluster[],
  name: string | undefined,
): { summary: MineSummary; merged: Cluster } | undefined {
  const tallies = clusters.map((c) => summary.tallies[c.id]);
  if (!tallies.every((t): t is ClusterTally => t !== undefined)) return undefined;
  const tally = addTallies(tallies);
  const ids = clusters.flatMap((c) => c.attemptIds).sort();
  const det = new Map<string, number>();
  for (const c of clusters)
    for (const d of c.detectors) det.set(d.id, (det.get(d.id) ?? 0) + d.count);
  const first = clusters[0];
  const merged = describeTallied(
    {
      ids,
      taskIds: [...new Set(clusters.flatMap((c) => c.taskIds))].sort(),
      detectors: detectorCounts(det),
      evidence: clusters
        .flatMap((c) => c.evidence)
        .sort((a, b) => (a.attemptId < b.attemptId ? -1 : 1))
        .slice(0, 3),
    },
    tally,
    clusterId(ids),
    name ?? (first?.named ? first.name : undefined),
  );
  const gone = new Set(clusters.map((c) => c.id));
  const kept: Record<string, ClusterTally> = {};
  for (const [id, t] of Object.entries(summary.tallies)) if (!gone.has(id)) kept[id] = t;
  const t = keptTally(tally);
  if (t) kept[merged.id] = t;
  return {
    summary: {
      ...summary,
      clusters: sortClusters([...summary.clusters.filter((c) => !gone.has(c.id)), merged]),
      tallies: kept,
    },
    merged,
  };
}

/**
 * Earlier summaries, kept for an undo: before a decision made against the kept summary
 * replaces it, the summary is moved aside (no copy) under the digest of the decisions it
 * applied and the stamp of the file it was computed from (`<digest>~<stamp>.json`); an undo
 * that leaves those decisions takes it back while everything else in its key is unchanged.
 * The newest SUMMARIES_KEPT are kept.
 */
const SUMMARIES_KEPT = 16;

const keptName = (digest: string, stamp: string) => `${digest}~${stamp}.json`;

/** Moves the summary kept under `stamp`'s key aside for an undo of what comes next. */
export function setSummaryAside(dir: string, digest: string, stamp: string): void {
  const paths = workspacePaths(dir);
  const to = join(paths.clustersSummaries, keptName(digest, stamp));
  try {
    mkdirSync(paths.clustersSummaries, { recursive: true });
    rmSync(`${to}.sha256`, { force: true });
    renameSync(paths.clustersSummary, to);
    renameSync(`${paths.clustersSummary}.sha256`, `${to}.sha256`);
    const names = readdirSync(paths.clustersSummaries).filter((n) => n.endsWith(".json"));
    if (names.length <= SUMMARIES_KEPT) return;
    const byAge = names
      .map((n) => ({ n, t: statSync(join(paths.clustersSummaries, n)).mtimeMs }))
      .sort((a, b) => a.t - b.t);
    for (const { n } of byAge.slice(0, names.length - SUMMARIES_KEPT))
      for (const f of [n, `${n}.sha256`]) rmSync(join(paths.clustersSummaries, f), { force: true });
  } catch {
    /* none kept: the undo takes the full path */
  }
}

/**
 * The summary set aside for the decisions whose digest is `digest`, while every other part
 * of its key is `parts`'s (the attempts, the labels, the config and code unchanged): its
 * bytes, checked, not parsed (an undo keeps it again as it is).
 */
export function summaryAside(
  dir: string,
  parts: SummaryKeyParts,
  digest: string,
): SummaryBytes | undefined {
  const folder = workspacePaths(dir).clustersSummaries;
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return undefined;
  }
  // newest first (the stamp ends in the decisions file's mtime in ns): a summary set aside
  // under an older build or config no longer matches, and each one tried is read and hashed
  const stampOfName = (n: string) => n.slice(digest.length + 1, -".json".length);
  const mtime = (n: string) => BigInt(/-(\d+)$/.exec(stampOfName(n))?.[1] ?? "0");
  const ours = names
    .filter((n) => n.startsWith(`${digest}~`) && n.endsWith(".json"))
    .sort((a, b) => (mtime(b) > mtime(a) ? 1 : mtime(b) < mtime(a) ? -1 : 0));
  for (const n of ours) {
    const stamp = stampOfName(n);
    const bytes = readKeyedBytes(join(folder, n), VERSION, keyOf({ ...parts, decisions: stamp }));
    if (bytes) return { bytes };
  }
  return undefined;
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
  const [{ currentClusters }, { summarizeMine }] = await Promise.all([
    import("./run-mining.js"),
    import("./render.js"),
  ]);
  const r = await currentClusters(ws);
  if (!r) return undefined;
  const summary = summarizeMine(r);
  // stored only when nothing it read changed meanwhile (a decision made during the read)
  if (key && (await summaryKey(ws)) === key) await writeClustersSummary(ws.dir, key, summary);
  return summary;
}
