import { currentSummary } from "../mine/clusters-summary.js";
import {
  appendDecision,
  type Decision,
  type DecisionsAt,
  undoLastDecision,
  userExclusionsAt,
} from "../mine/decisions.js";
import type { MineSummary } from "../mine/render.js";
import { triageKey } from "../mine/triage-cache.js";
import type { Workspace } from "../workspace/load.js";
import type { WorkspaceSession } from "./session.js";

/**
 * What `fire clusters` prints of the current clusters (`renderMineSummary`), from a small
 * file kept while nothing it depends on changed; undefined before any `fire mine`. This
 * module (re-exported by mining.ts) loads no mining code, which loads on a miss only, so a
 * `fire cluster rename` or `merge` needs none.
 */
export function clustersSummary(s: { readonly ws: Workspace }): Promise<MineSummary | undefined> {
  return currentSummary(s.ws);
}

/**
 * The cluster `ref` names — its id, its exact name or an id prefix of 4+ characters — or a
 * usage error listing the known ids.
 */
export { clusterNamed } from "../mine/resolve-cluster.js";

/**
 * `fire cluster rename|merge|split|exclude` / the Mechanisms screen's decisions: records the
 * decision, timestamped (`clusters` then re-clusters with it; triage reads exclusions).
 */
export async function decide(
  s: { readonly ws: Pick<Workspace, "dir"> },
  d: Decision,
  now = new Date(),
): Promise<Decision> {
  const decision = { ...d, at: now.toISOString() };
  await appendDecision(s.ws.dir, decision);
  return decision;
}

/**
 * A cluster decision in a session that stays open (the workbench): recorded as `decide`
 * records it, then the session's decisions and exclusions follow from the file as written
 * (labels and attempts are not read again; triage changes only when the exclusions did).
 */
export async function decideInSession<S extends WorkspaceSession>(
  s: S,
  d: Decision,
  now = new Date(),
): Promise<{ session: S; exclusionsChanged: boolean }> {
  const at = await appendDecision(s.ws.dir, { ...d, at: now.toISOString() });
  return withKeyNow(withDecisionsAt(s, at));
}

/**
 * `fire cluster undo` when the kept summary cannot follow (kept-decisions.ts
 * `undoInKeptSummary`): the newest decision removed from the file, read through the schema;
 * the next read computes the clusters. Undefined when there was none.
 */
export async function undoNewest(s: {
  readonly ws: Pick<Workspace, "dir">;
}): Promise<Decision | undefined> {
  return (await undoLastDecision(s.ws.dir)).undone;
}

/** Undoes the newest cluster decision in an open session (the workbench's `u`), as above. */
export async function undoInSession<S extends WorkspaceSession>(
  s: S,
): Promise<{ session: S; exclusionsChanged: boolean; undone: Decision | undefined }> {
  const { undone, at } = await undoLastDecision(s.ws.dir);
  return { ...(await withKeyNow(withDecisionsAt(s, at))), undone };
}

/**
 * The session with triage's key of the decisions file just written (read right after the
 * write): the triage of its decisions may be kept under it (`keepGlance`).
 */
async function withKeyNow<S extends WorkspaceSession, R extends { session: S }>(r: R): Promise<R> {
  const key = await triageKey(r.session.ws);
  const { triageKey: _old, ...rest } = r.session;
  return { ...r, session: { ...rest, ...(key ? { triageKey: key } : {}) } as S };
}

/**
 * The session after a cluster decision or an undo, from the decisions file as it was just
 * written (nothing is read again): its decisions and user exclusions follow. Only a change
 * of the exclusions changes triage, so the caller computes triage again only then.
 */
export function withDecisionsAt<S extends WorkspaceSession>(
  s: S,
  at: DecisionsAt,
): { session: S; exclusionsChanged: boolean } {
  const userExcluded = userExclusionsAt(at.file, at.decisions.decisions, at.lines);
  const before = s.triageInputs.userExcluded ?? new Map();
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const exclusionsChanged =
    before.size !== userExcluded.size ||
    [...userExcluded].some(([id, why]) => !same(before.get(id), why));
  return {
    session: {
      ...s,
      decisions: at.decisions.decisions,
      triageInputs: { ...s.triageInputs, userExcluded },
    },
    exclusionsChanged,
  };
}
