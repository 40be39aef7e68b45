import type { InputError } from "../../core/errors.js";
import type { Label } from "../../core/mine/label.js";
import { type TriageResult, triage } from "../../core/mine/triage.js";
import { loadTriageInputs, type TriageInputs } from "../../core/mine/triage-view.js";
import type { Attempt } from "../../core/model/attempt.js";
import { type LoadProgress, loadWorkspace, type Workspace } from "../../core/workspace/load.js";
import { type CandidateEntry, readCandidates } from "./candidates.js";

/** Everything the first frame needs: the loaded workspace, its triage and candidates. */
export interface WorkspaceData {
  ws: Workspace;
  byId: Map<string, Attempt>;
  labels: Map<string, Label>;
  /** What triage was computed from (core triage-view): screens re-triage with these only. */
  triageInputs: TriageInputs;
  triage: TriageResult;
  candidates: CandidateEntry[];
  candidateErrors: InputError[];
}

export interface LoadDataOptions {
  onProgress?: (p: LoadProgress) => void;
  signal?: AbortSignal;
}

/** Loads the workspace through core (loadWorkspace, triage inputs, triage, candidate files). */
export async function loadWorkspaceData(
  dir: string,
  opts: LoadDataOptions = {},
): Promise<WorkspaceData> {
  const ws = await loadWorkspace(dir, opts);
  return withTriage(ws, await loadTriageInputs(ws), readCandidates(ws.dir));
}

/** Re-reads the triage inputs (labels, decisions) after a mining run or a cluster decision. */
export async function reloadTriage(data: WorkspaceData): Promise<WorkspaceData> {
  return withTriage(data.ws, await loadTriageInputs(data.ws), {
    entries: data.candidates,
    errors: data.candidateErrors,
  });
}

/** Recomputes the derived parts after triage inputs or candidates change. */
export function withTriage(
  ws: Workspace,
  inputs: TriageInputs,
  cands: { entries: CandidateEntry[]; errors: InputError[] },
): WorkspaceData {
  return {
    ws,
    byId: new Map(ws.attempts.map((a) => [a.id, a])),
    labels: new Map(inputs.labels ?? new Map<string, Label>()),
    triageInputs: inputs,
    triage: triage(ws.attempts, inputs),
    candidates: cands.entries,
    candidateErrors: cands.errors,
  };
}
