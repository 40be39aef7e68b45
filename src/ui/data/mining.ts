import {
  clusters,
  decide as decideAction,
  mine,
  undoDecision as undoAction,
} from "../../core/app/mining.js";
import type { Decision } from "../../core/mine/decisions.js";
import type { ExternalLabeler, LabelerName, MineResult } from "../../core/mine/mine.js";
import type { Workspace } from "../../core/workspace/load.js";
import { workspaceServices } from "../../services.js";

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

/** A cluster decision (core/app `decide`), then the clusters with it applied. */
export async function decide(ws: Workspace, d: Decision): Promise<MineResult | undefined> {
  await decideAction({ ws }, d);
  return clusters({ ws });
}

/** Undoes the newest cluster decision (core/app `undoDecision`), then the clusters again. */
export async function undoDecision(
  ws: Workspace,
): Promise<{ undone: Decision | undefined; mine: MineResult | undefined }> {
  const undone = await undoAction({ ws });
  return { undone, mine: await clusters({ ws }) };
}

/** The current clusters (core/app `clusters`). */
export const currentClusters = (ws: Workspace): Promise<MineResult | undefined> => clusters({ ws });
