import type { InputError } from "../../core/errors.js";
import type { Label } from "../../core/mine/label.js";
import { lastLabels } from "../../core/mine/label-cache.js";
import { type TriageResult, triage } from "../../core/mine/triage.js";
import type { Attempt } from "../../core/model/attempt.js";
import { type LoadProgress, loadWorkspace, type Workspace } from "../../core/workspace/load.js";
import { type CandidateEntry, readCandidates } from "./candidates.js";

/** Everything the first frame needs: the loaded workspace, its triage and candidates. */
export interface WorkspaceData {
  ws: Workspace;
  byId: Map<string, Attempt>;
  labels: Map<string, Label>;
  triage: TriageResult;
  candidates: CandidateEntry[];
  candidateErrors: InputError[];
}

export interface LoadDataOptions {
  onProgress?: (p: LoadProgress) => void;
  signal?: AbortSignal;
}

/** Loads the workspace through core (loadWorkspace, lastLabels, triage, candidate files). */
export async function loadWorkspaceData(
  dir: string,
  opts: LoadDataOptions = {},
): Promise<WorkspaceData> {
  const ws = await loadWorkspace(dir, opts);
  const labels = (await lastLabels(ws.dir)) ?? new Map<string, Label>();
  return withTriage(ws, labels, readCandidates(ws.dir));
}

/** Recomputes the derived parts after labels or candidates change. */
export function withTriage(
  ws: Workspace,
  labels: Map<string, Label>,
  cands: { entries: CandidateEntry[]; errors: InputError[] },
): WorkspaceData {
  return {
    ws,
    byId: new Map(ws.attempts.map((a) => [a.id, a])),
    labels,
    triage: triage(ws.attempts, {
      verifierFaultMarkers: ws.config.mining.verifierFaultMarkers,
      labels,
    }),
    candidates: cands.entries,
    candidateErrors: cands.errors,
  };
}
