import type { ExternalLabeler } from "../core/mine/mine.js";
import type { Workspace } from "../core/workspace/load.js";
import { workspacePaths } from "../core/workspace/paths.js";
import { type LabelProgress, labelAttempts } from "./label.js";

/** Where a workspace keeps its LLM answers (the response cache and batch state). */
export function llmCacheDir(ws: Pick<Workspace, "dir">): string {
  return workspacePaths(ws.dir).llmCache;
}

export interface WorkspaceLabelerOptions {
  /** Label through the Batch API (`fire mine --batch`). */
  batch?: boolean;
  /**
   * Full progress (done, total, cost, cache hits). Without it, progress goes to the miner's
   * own `onProgress` as done/total.
   */
  onProgress?: (p: LabelProgress) => void;
}

/**
 * The LLM labeller for `mine` over a workspace: the workspace's `llm` config and cache.
 * Shared by `fire mine --labeler llm` and the workbench.
 */
export function workspaceLabeler(
  ws: Workspace,
  opts: WorkspaceLabelerOptions = {},
): ExternalLabeler {
  return async (attempts, o) =>
    labelAttempts(attempts, {
      evidence: o.evidence,
      config: ws.config.llm,
      cacheDir: llmCacheDir(ws),
      population: ws.attempts,
      batch: opts.batch === true,
      faultMarkers: {
        verifier: ws.config.mining.verifierFaultMarkers,
        environment: ws.config.mining.environmentFaultMarkers,
      },
      ...(o.signal ? { signal: o.signal } : {}),
      onProgress: opts.onProgress ?? ((p) => o.onProgress?.(p.done, p.total)),
    });
}
