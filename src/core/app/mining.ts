import { NotFoundError } from "../errors.js";
import { type Decision, undoLastDecision } from "../mine/decisions.js";
import type { MineResult } from "../mine/mine.js";
import {
  currentClusters,
  type KnownDecisions,
  type RunMiningOptions,
  runMining,
} from "../mine/run-mining.js";
import { type ValidationReport, type ValidationSet, validate } from "../mine/validation.js";
import type { Workspace } from "../workspace/load.js";

export {
  clusterNamed,
  clustersSummary,
  decide,
  decideInSession,
  undoInSession,
} from "./clusters.js";

/**
 * The mining actions (`fire mine`, `fire clusters`, `fire cluster …` and the workbench's
 * Mechanisms screen). The LLM labeller lives in src/llm, which core never imports: a front
 * end that wants it loads it and passes it in as `external`.
 */

/** What mining works on: the loaded workspace (a WorkspaceSession is one). */
export interface MiningSession {
  readonly ws: Workspace;
}

export type MineOptions = RunMiningOptions;

/** `fire mine` / Mechanisms `m`: labels what changed (label cache), clusters, persists. */
export function mine(s: MiningSession, opts: MineOptions): Promise<MineResult> {
  return runMining(s.ws, opts);
}

/** `fire mine --validate FILE`: the run's labels and exclusions against a validation set. */
export function validateMining(
  s: MiningSession,
  r: MineResult,
  set: ValidationSet,
): ValidationReport {
  return validate(
    set,
    s.ws.attempts,
    new Map(r.labels.map((l) => [l.attemptId, l])),
    new Map(r.triage.exclusions.map((e) => [e.attemptId, e.reason])),
  );
}

/**
 * `fire clusters`: the last run's labels re-clustered with the user's decisions; undefined
 * before any `fire mine`. A session that holds the decisions just written (and the triage
 * with their exclusions) passes them in `known`: neither is read or computed again.
 */
export function clusters(
  s: MiningSession,
  known?: KnownDecisions,
): Promise<MineResult | undefined> {
  return currentClusters(s.ws, known);
}

/** The current clusters, or a usage error saying to mine first. */
export async function minedClusters(s: MiningSession): Promise<MineResult> {
  const r = await clusters(s);
  if (!r) throw new NotFoundError("nothing mined yet: run `fire mine` first");
  return r;
}

/** Undoes the newest cluster decision (`u` on Mechanisms); undefined when there was none. */
export async function undoDecision(s: MiningSession): Promise<Decision | undefined> {
  return (await undoLastDecision(s.ws.dir)).undone;
}

export { loadValidationSet, type ValidationReport } from "../mine/validation.js";
