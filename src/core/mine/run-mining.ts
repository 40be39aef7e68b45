import type { FireConfig } from "../workspace/config.js";
import { handOutcomesOf, readHandMarks } from "../workspace/hand-outcomes.js";
import { withAllParts } from "../workspace/index-attempts.js";
import type { Workspace } from "../workspace/load.js";
import { workspacePaths } from "../workspace/paths.js";
import { fileStamp } from "../workspace/stamped-cache.js";
import { applyDecisions } from "./apply-decisions.js";
import { reviewIds } from "./cluster.js";
import { clustersSummaryKey, writeClustersSummary } from "./clusters-summary.js";
import { type Decision, loadDecisions, userExclusions } from "./decisions.js";
import { lastLabeler, readLabelStore, writeLabelStore } from "./label-cache.js";
import {
  type ExternalLabeler,
  type LabelerName,
  type MineProgress,
  type MineResult,
  mine,
  miningTriage,
} from "./mine.js";
import { readMiningCache, writeMiningCache } from "./mining-cache.js";
import { miningKeyOf } from "./mining-key.js";
import { summarizeMine } from "./render.js";
import type { TriageResult } from "./triage.js";

export interface RunMiningOptions {
  labeler: LabelerName;
  external?: ExternalLabeler;
  /** Label again attempts that stayed unlabelled in an earlier run. */
  retryUnlabelled?: boolean;
  onProgress?: (p: MineProgress) => void;
  signal?: AbortSignal;
}

/**
 * `fire mine`: labels what changed (reusing the label cache), clusters, persists the label
 * cache. The clustering before the user's decisions is kept too (the mining cache, and the
 * summary `fire clusters` prints), as `currentClusters` would compute it from the labels
 * just stored, so the first read after a mine clusters nothing again.
 */
export async function runMining(ws: Workspace, opts: RunMiningOptions): Promise<MineResult> {
  const paths = workspacePaths(ws.dir);
  // what the decisions and hand outcomes files were when read: the summary's key stamps them
  const inputs = () => `${fileStamp(paths.decisions)} ${fileStamp(paths.handOutcomes)}`;
  const inputsBefore = inputs();
  const [store, decisions, hand] = await Promise.all([
    readLabelStore(ws.dir, opts.labeler),
    loadDecisions(ws.dir),
    readHandMarks(ws.dir),
  ]);
  const handOutcomes = handOutcomesOf(hand);
  const base = await mine(ws.attempts, {
    labeler: opts.labeler,
    config: ws.config,
    store,
    decisions: [],
    handOutcomes,
    ...(opts.external ? { external: opts.external } : {}),
    ...(opts.retryUnlabelled ? { retryUnlabelled: true } : {}),
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  await writeLabelStore(ws.dir, base.store);
  const result = withDecisions(base, ws, decisions.decisions, handOutcomes);
  const reused = asReused(base);
  const key = reused && miningKeyOf(ws, opts.labeler, handOutcomes);
  if (reused && key) {
    await writeMiningCache(ws, key, reused, handOutcomes);
    memo = { dir: ws.dir, key, base: reused };
    // the summary only while the decisions it applied are the file's (none made meanwhile)
    const summaryKey = clustersSummaryKey(ws, opts.labeler);
    if (summaryKey && inputs() === inputsBefore)
      await writeClustersSummary(
        ws.dir,
        summaryKey,
        summarizeMine({ ...result, ...counts(reused) }),
      );
  }
  return result;
}

/**
 * A run's clustering as a later read of the stored labels gives it (`mine` with
 * `reuseOnly`): every label reused, none new, no report. Undefined when such a read would
 * not give these labels (one the store does not hold as this run's, as a labeller that
 * answered for fewer attempts than asked can leave it): that read computes its own.
 */
function asReused(r: MineResult): MineResult | undefined {
  const scope = new Set(r.store.lastRun);
  const same =
    r.labels.length === scope.size &&
    r.labels.every((l) => scope.has(l.attemptId) && r.store.entries[l.attemptId]?.label === l);
  if (!same) return undefined;
  const { report: _report, ...rest } = r;
  return {
    ...rest,
    labelled: 0,
    failed: 0,
    reused: r.labels.length,
    reusedFailed: r.labels.filter((l) => l.unlabelledReason).length,
  };
}

const counts = ({ labelled, failed, reused, reusedFailed }: MineResult) => ({
  labelled,
  failed,
  reused,
  reusedFailed,
});

/**
 * The current clusters without labelling anything: the last run's cached labels,
 * re-clustered, with the user's decisions replayed. Undefined when nothing was mined yet.
 * The clustering before decisions is kept beside the index (core/mine/mining-cache.ts) and
 * reused while its inputs are unchanged; the decisions are applied on each call, so
 * reading clusters after a rename, merge, split or exclude re-clusters nothing.
 */
export async function currentClusters(
  ws: Workspace,
  known: KnownDecisions = {},
): Promise<MineResult | undefined> {
  const labeler = await lastLabeler(ws.dir);
  if (!labeler) return undefined;
  const [decisions, hand] = await Promise.all([
    known.decisions ? { decisions: known.decisions } : loadDecisions(ws.dir),
    readHandMarks(ws.dir),
  ]);
  const handOutcomes = handOutcomesOf(hand);
  const key = miningKeyOf(ws, labeler, handOutcomes);
  // the label store is read after the key is taken: what was read is kept (in memory, in
  // the cache) only while the key still stamps the store read (no `fire mine` meanwhile)
  const stillKey = () => key !== undefined && miningKeyOf(ws, labeler, handOutcomes) === key;
  let base = key && memo?.dir === ws.dir && memo.key === key ? memo.base : undefined;
  if (!base && key) {
    base = await readMiningCache(ws, key, handOutcomes);
    if (base && !stillKey()) base = undefined;
    if (base) memo = { dir: ws.dir, key, base };
  }
  if (!base) {
    // every attempt's events, read unit by unit rather than in task order (index-backed)
    base = await mine(withAllParts(ws.attempts), {
      labeler,
      config: ws.config,
      store: await readLabelStore(ws.dir, labeler),
      decisions: [],
      handOutcomes,
      reuseOnly: true,
    });
    if (key && stillKey()) {
      await writeMiningCache(ws, key, base, handOutcomes);
      memo = { dir: ws.dir, key, base };
    }
  }
  return withDecisions(base, ws, decisions.decisions, handOutcomes, known.triage);
}

/**
 * What a caller that holds the decisions already has: the decisions just written (not read
 * again) and the triage with their exclusions (not computed again: the workbench's own).
 */
export interface KnownDecisions {
  decisions?: readonly Decision[];
  triage?: TriageResult;
}

/**
 * The last clustering served, with its key: a process that reads clusters again under the
 * same key (the workbench after a rename, merge, split or exclude) takes it from memory
 * rather than parsing the mining cache again. The key names every input, so it is the same.
 */
let memo: { dir: string; key: string; base: MineResult } | undefined;

/**
 * A clustering without decisions (`mine` with none) with the user's decisions applied, as
 * `mine` applies them: clusters, user exclusions, the review list and triage with labels.
 */
export function withDecisions(
  base: MineResult,
  ws: Pick<Workspace, "attempts" | "config" | "index">,
  decisions: readonly Decision[],
  handOutcomes: ReadonlyMap<string, "pass" | "fail">,
  knownTriage?: TriageResult,
): MineResult {
  if (decisions.length === 0) return base;
  const config: FireConfig = ws.config;
  const byId = ws.index?.byId ?? new Map(ws.attempts.map((a) => [a.id, a]));
  const labelMap = new Map(base.labels.map((l) => [l.attemptId, l]));
  // Only an exclude changes triage: with none, the base's (the same labels, no exclusions)
  // stands, and triage (which reads failed attempts' verifier output) is not run again.
  const excludes = decisions.some((d) => d.op === "exclude");
  const finalTriage = !excludes
    ? base.finalTriage
    : (knownTriage ??
      miningTriage(ws.attempts, config, {
        labels: labelMap,
        userExcluded: userExclusions(decisions),
        handOutcomes,
        knownFaults: ws.index?.faults,
      }));
  const applied = applyDecisions(base.clusters, decisions, {
    labels: base.labels,
    attempts: byId,
    hits: base.hits,
  });
  const excluded = new Set(applied.excluded.map((e) => e.attemptId));
  const clustered = new Set(applied.clusters.flatMap((c) => c.attemptIds));
  return {
    ...base,
    finalTriage,
    clusters: applied.clusters,
    review: reviewIds(base.labels).filter((id) => !excluded.has(id) && !clustered.has(id)),
    userExcluded: applied.excluded,
  };
}
