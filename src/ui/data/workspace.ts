import {
  type OpenSessionOptions,
  openSession,
  readPendingCandidates,
  reloadCandidates,
  reloadMining,
  sessionTriage,
  type WorkspaceSession,
  withCandidates,
} from "../../core/app/session.js";
import type { TriageResult } from "../../core/mine/triage.js";

/**
 * The workbench's view model: the core/app WorkspaceSession (workspace, labels, decisions,
 * triage inputs, candidates) and its triage, so screens show what `fire triage` shows.
 */
export interface WorkspaceData extends WorkspaceSession {
  triage: TriageResult;
}

export type LoadDataOptions = OpenSessionOptions;

const withTriage = (s: WorkspaceSession): WorkspaceData => ({ ...s, triage: sessionTriage(s) });

/** Opens the workspace session (core/app openSession) and computes its triage. */
export async function loadWorkspaceData(
  dir: string,
  opts: LoadDataOptions = {},
): Promise<WorkspaceData> {
  return withTriage(await openSession(dir, opts));
}

/** Re-reads labels and decisions after a mining run or a cluster decision; triage again. */
export async function reloadTriage(data: WorkspaceData): Promise<WorkspaceData> {
  return withTriage(await reloadMining(data));
}

/** Re-reads the candidate files after a draft, an edit or a lifecycle action. */
export const reloadCandidateFiles = (data: WorkspaceData): WorkspaceData => reloadCandidates(data);

/** Reads the candidate files a data left pending, a file per turn (see useWorkspaceLoad). */
export { readPendingCandidates, withCandidates };
