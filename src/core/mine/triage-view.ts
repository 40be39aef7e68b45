import type { FireConfig } from "../workspace/config.js";
import { type HandMarks, handOutcomesOf, readHandMarks } from "../workspace/hand-outcomes.js";
import type { Workspace } from "../workspace/load.js";
import { type Decision, loadDecisionsAt, userExclusionsAt } from "./decisions.js";
import type { Label } from "./label.js";
import { labelStorePath, lastLabeler, lastLabels } from "./label-cache.js";
import type { TriageOptions, TriageResult } from "./triage.js";
import { readTriageCache, triageKey, writeTriageCache } from "./triage-cache.js";
import { glanceOf, writeTriageGlance } from "./triage-glance.js";

/**
 * Everything triage takes from a workspace besides its attempts: the configured fault
 * markers, the last mining run's labels and the user's exclude decisions. The CLI, the
 * workbench and its screens all build triage from this, so they cannot disagree.
 */
export type TriageInputs = TriageOptions;

/** Triage inputs from the config and already-loaded labels and decisions (pure). */
export function triageInputsOf(
  config: FireConfig,
  labels: ReadonlyMap<string, Label> | undefined,
  userExcluded: TriageOptions["userExcluded"],
  labelsFile?: string,
): TriageInputs {
  return {
    verifierFaultMarkers: config.mining.verifierFaultMarkers,
    environmentFaultMarkers: config.mining.environmentFaultMarkers,
    ...(labels ? { labels } : {}),
    ...(labelsFile ? { labelsFile } : {}),
    ...(userExcluded ? { userExcluded } : {}),
  };
}

/** What the last mining run and the user's decisions left in a workspace, read once. */
export interface MiningState {
  /** The last run's labels (undefined before any `fire mine`). */
  labels: ReadonlyMap<string, Label> | undefined;
  decisions: readonly Decision[];
  /** Outcomes and tags given by hand to attempts without a verifier. */
  hand: HandMarks;
  /** Triage inputs built from these (and the config's fault markers). */
  inputs: TriageInputs;
}

/**
 * Reads the workspace's last labels and decisions, and the triage inputs they make (with
 * the faults its index already computed, when it was opened from one).
 */
export async function loadMiningState(
  ws: Pick<Workspace, "dir" | "config" | "index">,
): Promise<MiningState> {
  const [labels, labeler, at, hand] = await Promise.all([
    lastLabels(ws.dir),
    lastLabeler(ws.dir),
    loadDecisionsAt(ws.dir),
    readHandMarks(ws.dir),
  ]);
  const base = triageInputsOf(
    ws.config,
    labels,
    userExclusionsAt(at.file, at.decisions.decisions, at.lines),
    labeler ? labelStorePath(ws.dir, labeler) : undefined,
  );
  const outcomes = handOutcomesOf(hand);
  const inputs: TriageInputs = {
    ...base,
    ...(outcomes.size ? { handOutcomes: outcomes } : {}),
    ...(ws.index ? { knownFaults: ws.index.faults } : {}),
  };
  return { labels, decisions: at.decisions.decisions, hand, inputs };
}

/** Reads the workspace's last labels and decisions into triage inputs. */
export async function loadTriageInputs(
  ws: Pick<Workspace, "dir" | "config" | "index">,
): Promise<TriageInputs> {
  return (await loadMiningState(ws)).inputs;
}

/** `fire triage` and the workbench's triage: k/n per task and arm, exclusions with evidence. */
export async function triageView(
  ws: Workspace,
): Promise<{ triage: TriageResult; inputs: TriageInputs }> {
  // triage and its fault rules load when triage is computed, not for a cached answer
  const [inputs, { triage }] = await Promise.all([loadTriageInputs(ws), import("./triage.js")]);
  return { triage: triage(ws.attempts, inputs), inputs };
}

/**
 * `fire triage`: the triage of `triageView`, served from the triage cache while nothing it
 * reads has changed (core/mine/triage-cache.ts); computed and stored otherwise.
 */
export async function currentTriage(ws: Workspace): Promise<TriageResult> {
  const key = await triageKey(ws);
  const cached = key ? readTriageCache(ws.dir, key) : undefined;
  if (cached) return cached;
  const { triage: result } = await triageView(ws);
  // stored only when nothing it read changed meanwhile (a decision made during the read)
  if (key && (await triageKey(ws)) === key) {
    await writeTriageCache(ws.dir, key, result);
    // the workbench's first frame shows the same counts (core/mine/triage-glance.ts)
    await writeTriageGlance(ws.dir, key, glanceOf(ws.attempts.length, result));
  }
  return result;
}
