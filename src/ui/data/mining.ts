import { clusters, decideInSession, mine, undoInSession } from "../../core/app/mining.js";
import type { Decision } from "../../core/mine/decisions.js";
import type { ExternalLabeler, LabelerName, MineResult } from "../../core/mine/mine.js";
import type { Workspace } from "../../core/workspace/load.js";
import { workspaceServices } from "../../services.js";
import { afterDecision, type WorkspaceData } from "./workspace.js";

/** Progress of a labelling run as the Mechanisms screen shows it. */
export interface MiningProgress {
  phase: string;
  done: number;
  total: number;
  costUsd?: number;
  cacheHits?: number;
}

/** The workspace's LLM labeller (src/services.ts, the same as `fire mine --labeler llm`). */
async function llmLabeler(
  ws: Workspace,
  onProgress: (p: MiningProgress) => void,
): Promise<ExternalLabeler> {
  return workspaceServices(ws).labeler({
    onProgress: (p) =>
      onProgress({
        phase: "label",
        done: p.done,
        total: p.total,
        costUsd: p.costUsd,
        cacheHits: p.cacheHits,
      }),
  });
}

/** Mechanisms `m`: core/app `mine`, with the LLM labeller's cost in the progress. */
export async function mineWorkspace(
  ws: Workspace,
  labeler: LabelerName,
  onProgress: (p: MiningProgress) => void,
  signal: AbortSignal,
): Promise<MineResult> {
  const external = labeler === "llm" ? await llmLabeler(ws, onProgress) : undefined;
  return mine(
    { ws },
    {
      labeler,
      ...(external ? { external } : {}),
      onProgress: (p) => {
        if (labeler === "llm" && p.phase === "label") return; // the LLM's own progress has cost
        onProgress({ phase: p.phase, done: p.done, total: p.total });
      },
      signal,
    },
  );
}

/** What a cluster decision or an undo leaves: the session, its triage and the clusters. */
export interface DecisionResult {
  data: WorkspaceData;
  mine: MineResult | undefined;
}

/**
 * A cluster decision (core/app `decideInSession`), then the clusters with it applied: the
 * decisions as written and the clustering kept in memory, nothing read again; triage only
 * when the decision changed the exclusions, and then once (the clusters take the same).
 */
export async function decide(data: WorkspaceData, d: Decision): Promise<DecisionResult> {
  return withClusters(afterDecision(await decideInSession(data, d)));
}

/** Undoes the newest cluster decision (core/app `undoInSession`), as `decide` applies one. */
export async function undoDecision(
  data: WorkspaceData,
): Promise<DecisionResult & { undone: Decision | undefined }> {
  const r = await undoInSession(data);
  return { ...(await withClusters(afterDecision(r))), undone: r.undone };
}

const withClusters = async (data: WorkspaceData): Promise<DecisionResult> => ({
  data,
  mine: await clusters(data, { decisions: data.decisions, triage: data.triage }),
});

/** The current clusters (core/app `clusters`). */
export const currentClusters = (ws: Workspace): Promise<MineResult | undefined> => clusters({ ws });
