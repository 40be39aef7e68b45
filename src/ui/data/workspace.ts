import {
  candidateSession,
  type OpenSessionOptions,
  openSession,
  readPendingCandidates,
  reloadCandidates,
  reloadMining,
  sessionTriage,
  type WorkspaceSession,
  withCandidates,
} from "../../core/app/session.js";
import type { CandidateEntries } from "../../core/lifecycle/entries.js";
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

/** Re-reads labels and decisions after a mining run or a hand mark; triage again. */
export async function reloadTriage(data: WorkspaceData): Promise<WorkspaceData> {
  return withTriage(await reloadMining(data));
}

/**
 * The session after a cluster decision (`decideInSession`): triage again only when the
 * decision changed the exclusions; otherwise the triage shown stands.
 */
export const afterDecision = (r: { session: WorkspaceData; exclusionsChanged: boolean }) =>
  r.exclusionsChanged ? withTriage(r.session) : r.session;

/**
 * `next`'s labels, decisions and triage put into `cur`, the data current when the work that
 * computed `next` ends: what changed meanwhile (candidate files read, for one) is kept, so a
 * job started on older data never takes the screen back to it. A workspace read again from
 * its sources meanwhile read its own mining state: it is kept as it is.
 */
export function withMiningOf(
  cur: WorkspaceData | undefined,
  next: WorkspaceData,
): WorkspaceData | undefined {
  if (!cur || cur.ws !== next.ws) return cur;
  const { labels, decisions, hand, triageInputs, triage, triageKey } = next;
  const { triageKey: _old, ...rest } = cur;
  return {
    ...rest,
    labels,
    decisions,
    hand,
    triageInputs,
    triage,
    ...(triageKey ? { triageKey } : {}),
  };
}

/** Re-reads the candidate files after a draft, an edit or a lifecycle action. */
export const reloadCandidateFiles = (data: WorkspaceData): WorkspaceData => reloadCandidates(data);

/** The candidate files as they are now, for `withCandidates` on whatever data is current. */
export const readCandidateFiles = (dir: string): CandidateEntries => {
  const c = candidateSession(dir);
  return { entries: [...c.candidates], errors: [...c.candidateErrors] };
};

/** Reads the candidate files a data left pending, a file per turn (see useWorkspaceLoad). */
export { readPendingCandidates, withCandidates };
