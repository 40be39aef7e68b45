import type { Attempt } from "../model/attempt.js";
import type { FireConfig } from "../workspace/config.js";
import { applyDecisions, type UserExcluded } from "./apply-decisions.js";
import { type Cluster, clusterLabels, reviewIds } from "./cluster.js";
import { type Decision, userExclusions } from "./decisions.js";
import { runDetectorsAll } from "./detectors/index.js";
import type { DetectorHit } from "./detectors/types.js";
import { heuristicLabel } from "./heuristic.js";
import { type Label, LLM_LABEL_RULES, LLM_LABEL_VERSION } from "./label.js";
import { type LabelStore, labelKey } from "./label-cache.js";
import { asTriaged, type TriageOptions, type TriageResult, triage } from "./triage.js";
import { triageInputsOf } from "./triage-view.js";

export type LabelerName = "llm" | "heuristic";

export interface MineProgress {
  phase: "detect" | "label" | "cluster";
  done: number;
  total: number;
}

/** A labeller other than the built-in heuristic one (the LLM labeller, injected by the CLI). */
export type ExternalLabeler = (
  attempts: Attempt[],
  opts: {
    evidence: Map<string, DetectorHit[]>;
    onProgress?: (done: number, total: number) => void;
    signal?: AbortSignal;
  },
) => Promise<{ labels: Label[]; report?: unknown }>;

export interface MineOptions {
  labeler: LabelerName;
  config: FireConfig;
  /** Required when `labeler` is "llm". */
  external?: ExternalLabeler;
  /** Previous labels of this labeller; unchanged attempts reuse them. */
  store?: LabelStore;
  decisions?: readonly Decision[];
  /**
   * Outcomes given by hand (`mining/outcomes.json`) to attempts without a verifier: one
   * given `fail` is mined like a verifier failure, one given `pass` is not mined.
   */
  handOutcomes?: ReadonlyMap<string, "pass" | "fail">;
  /** Only reuse stored labels (for `fire clusters`): attempts without one stay unlabelled. */
  reuseOnly?: boolean;
  /**
   * Label again the attempts whose stored label is "unlabelled" (a failed request or
   * answer). Without it a cached re-run sends nothing for them.
   */
  retryUnlabelled?: boolean;
  onProgress?: (p: MineProgress) => void;
  signal?: AbortSignal;
}

export interface MineResult {
  labeler: LabelerName;
  /** Triage before labels (outside faults only). */
  triage: TriageResult;
  /** Triage after labels (capability_gap / no_intervention_point excluded too). */
  finalTriage: TriageResult;
  labels: Label[];
  hits: Map<string, DetectorHit[]>;
  clusters: Cluster[];
  /**
   * Failed attempts kept in scope without a named mechanism (evidence too weak, or
   * capability evidenced with no mechanism found): the user reviews them; drafts come only
   * from clusters. Attempts the user excluded are not here.
   */
  review: string[];
  userExcluded: UserExcluded[];
  /** Labels newly computed in this run that name a result (the rest came from the store). */
  labelled: number;
  /**
   * Attempts this run tried to label and could not (a failed request or a bad answer):
   * kept as "unlabelled: reason", asked again with `retryUnlabelled`.
   */
  failed: number;
  /** Labels reused from the store (of them, `reusedFailed` stayed unlabelled). */
  reused: number;
  reusedFailed: number;
  report?: unknown;
  /** The store to persist (this run's labels merged in). */
  store: LabelStore;
}

/** What `miningTriage` takes besides the attempts and the config. */
export interface MiningTriageInputs {
  /** The run's labels (absent: triage before labels, outside faults only). */
  labels?: ReadonlyMap<string, Label>;
  userExcluded?: TriageOptions["userExcluded"];
  handOutcomes?: ReadonlyMap<string, "pass" | "fail"> | undefined;
  /**
   * The outside faults the workspace index holds (absent: computed from every failed
   * attempt's events and verifier output, as a run over loaded attempts does).
   */
  knownFaults?: TriageOptions["knownFaults"] | undefined;
}

/**
 * Triage as mining runs it, with the same inputs as `fire triage` and the workbench
 * (core/mine/triage-view.ts): before labels, after them, and with the user's exclusions.
 */
export function miningTriage(
  attempts: readonly Attempt[],
  config: FireConfig,
  i: MiningTriageInputs,
): TriageResult {
  return triage(attempts, {
    ...triageInputsOf(config, i.labels, i.userExcluded),
    ...(i.handOutcomes?.size ? { handOutcomes: i.handOutcomes } : {}),
    ...(i.knownFaults ? { knownFaults: i.knownFaults } : {}),
  });
}

/**
 * The mining workflow over loaded attempts: triage → detectors → labels (heuristic or
 * injected) → triage with labels → clustering → the user's decisions replayed.
 */
export async function mine(attempts: readonly Attempt[], opts: MineOptions): Promise<MineResult> {
  const { config, signal } = opts;
  const markers = {
    verifier: config.mining.verifierFaultMarkers,
    environment: config.mining.environmentFaultMarkers,
  };
  const hand = opts.handOutcomes?.size ? { handOutcomes: opts.handOutcomes } : {};
  const first = miningTriage(attempts, config, { handOutcomes: opts.handOutcomes });
  const byId = new Map(attempts.map((a) => [a.id, a]));
  const scope = first.inScope.map((id) => byId.get(id)).filter((a): a is Attempt => !!a);
  opts.onProgress?.({ phase: "detect", done: 0, total: attempts.length });
  // detectors compare outcomes as triage does: a hand `pass` is a passing sibling
  const hits = runDetectorsAll(asTriaged(attempts, hand));
  opts.onProgress?.({ phase: "detect", done: attempts.length, total: attempts.length });
  signal?.throwIfAborted();

  const store: LabelStore = {
    version: 1,
    labeler: opts.labeler,
    lastRun: scope.map((a) => a.id),
    entries: { ...(opts.store?.labeler === opts.labeler ? opts.store.entries : {}) },
  };
  const labels: Label[] = [];
  const todo: Attempt[] = [];
  const keys = new Map<string, string>();
  for (const a of scope) {
    const extra =
      opts.labeler === "llm"
        ? // what the model saw depends on the prompt budget too: a new budget relabels
          `${config.llm.model}|${LLM_LABEL_VERSION}|${LLM_LABEL_RULES}|${config.llm.minPromptTokens},${config.llm.maxPromptTokens},${config.llm.promptShare}`
        : `name>=${config.mining.nameThreshold}`;
    const key = labelKey(a, hits.get(a.id) ?? [], extra);
    keys.set(a.id, key);
    const cached = store.entries[a.id];
    const retry = opts.retryUnlabelled === true && cached?.label.unlabelledReason !== undefined;
    if (cached && cached.hash === key && !retry) labels.push(cached.label);
    else todo.push(a);
  }
  const reused = labels.length;
  let report: unknown;
  if (opts.reuseOnly) todo.length = 0;
  if (todo.length > 0) {
    let fresh: Label[];
    if (opts.labeler === "heuristic") {
      fresh = todo.map((a, i) => {
        opts.onProgress?.({ phase: "label", done: i + 1, total: todo.length });
        return heuristicLabel(a, hits.get(a.id) ?? [], markers, {
          nameThreshold: config.mining.nameThreshold,
        });
      });
    } else {
      if (!opts.external) throw new Error("the llm labeller is not available");
      const evidence = new Map(todo.map((a) => [a.id, hits.get(a.id) ?? []]));
      const r = await opts.external(todo, {
        evidence,
        onProgress: (done, total) => opts.onProgress?.({ phase: "label", done, total }),
        ...(signal ? { signal } : {}),
      });
      fresh = r.labels;
      report = r.report;
    }
    for (const l of fresh) {
      labels.push(l);
      const key = keys.get(l.attemptId);
      // Unlabelled attempts are stored too: a re-run reuses them until --retry-unlabelled.
      if (key) store.entries[l.attemptId] = { hash: key, label: l };
    }
  }
  signal?.throwIfAborted();
  const failed = labels.slice(reused).filter((l) => l.unlabelledReason !== undefined).length;
  const reusedFailed = labels.slice(0, reused).filter((l) => l.unlabelledReason).length;
  labels.sort((a, b) => (a.attemptId < b.attemptId ? -1 : 1));
  const labelMap = new Map(labels.map((l) => [l.attemptId, l]));
  const finalTriage = miningTriage(attempts, config, {
    labels: labelMap,
    userExcluded: userExclusions(opts.decisions ?? []),
    handOutcomes: opts.handOutcomes,
  });
  opts.onProgress?.({ phase: "cluster", done: 0, total: 1 });
  const input = { labels, attempts: byId, hits };
  const auto = clusterLabels({ ...input, threshold: config.mining.clusterThreshold });
  const applied = applyDecisions(auto, opts.decisions ?? [], input);
  opts.onProgress?.({ phase: "cluster", done: 1, total: 1 });
  // attempts the user excluded or moved into a cluster are no longer for review
  const decided = new Set([
    ...applied.excluded.map((e) => e.attemptId),
    ...applied.clusters.flatMap((c) => c.attemptIds),
  ]);
  const result: MineResult = {
    labeler: opts.labeler,
    triage: first,
    finalTriage,
    labels,
    // the labelled attempts' hits (clusters quote them): the others' are not read again, and
    // at 100,000 attempts they were a quarter of the mining cache
    hits: new Map([...hits].filter(([id]) => labelMap.has(id))),
    clusters: applied.clusters,
    review: reviewIds(labels).filter((id) => !decided.has(id)),
    userExcluded: applied.excluded,
    labelled: labels.length - reused - failed,
    failed,
    reused,
    reusedFailed,
    store,
  };
  if (report !== undefined) result.report = report;
  return result;
}
