import { handOutcomesOf, readHandMarks } from "../workspace/hand-outcomes.js";
import type { Workspace } from "../workspace/load.js";
import { loadDecisions } from "./decisions.js";
import { lastLabeler, readLabelStore, writeLabelStore } from "./label-cache.js";
import {
  type ExternalLabeler,
  type LabelerName,
  type MineProgress,
  type MineResult,
  mine,
} from "./mine.js";

export interface RunMiningOptions {
  labeler: LabelerName;
  external?: ExternalLabeler;
  /** Label again attempts that stayed unlabelled in an earlier run. */
  retryUnlabelled?: boolean;
  onProgress?: (p: MineProgress) => void;
  signal?: AbortSignal;
}

/** `fire mine`: labels what changed (reusing the label cache), clusters, persists the cache. */
export async function runMining(ws: Workspace, opts: RunMiningOptions): Promise<MineResult> {
  const [store, decisions, hand] = await Promise.all([
    readLabelStore(ws.dir, opts.labeler),
    loadDecisions(ws.dir),
    readHandMarks(ws.dir),
  ]);
  const result = await mine(ws.attempts, {
    labeler: opts.labeler,
    config: ws.config,
    store,
    decisions: decisions.decisions,
    handOutcomes: handOutcomesOf(hand),
    ...(opts.external ? { external: opts.external } : {}),
    ...(opts.retryUnlabelled ? { retryUnlabelled: true } : {}),
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  await writeLabelStore(ws.dir, result.store);
  return result;
}

/**
 * The current clusters without labelling anything: the last run's cached labels,
 * re-clustered, with the user's decisions replayed. Undefined when nothing was mined yet.
 */
export async function currentClusters(ws: Workspace): Promise<MineResult | undefined> {
  const labeler = await lastLabeler(ws.dir);
  if (!labeler) return undefined;
  const [store, decisions, hand] = await Promise.all([
    readLabelStore(ws.dir, labeler),
    loadDecisions(ws.dir),
    readHandMarks(ws.dir),
  ]);
  return mine(ws.attempts, {
    labeler,
    config: ws.config,
    store,
    decisions: decisions.decisions,
    handOutcomes: handOutcomesOf(hand),
    reuseOnly: true,
  });
}
