import { UsageError } from "../errors.js";
import type { Cluster } from "../mine/cluster.js";
import {
  excludedInSummary,
  keptSummary,
  keptSummaryParts,
  mergedInSummary,
  renamedInSummary,
  type SummaryBytes,
  type SummaryKeyParts,
  setSummaryAside,
  summaryAside,
  writeClustersSummary,
} from "../mine/clusters-summary.js";
import type { Decision, StoredDecision } from "../mine/decisions.js";
import {
  DECISION_NAME_MAX,
  DECISION_REASON_MAX,
  decisionsDigest,
  editKnownDecisions,
  resolvedDecision,
} from "../mine/decisions-log.js";
import { isMemberSetRef, readMemberSet } from "../mine/member-sets.js";
import type { MineSummary } from "../mine/render-text.js";
import { clusterNamed, resolveCluster } from "../mine/resolve-cluster.js";
import type { WorkspaceHead } from "../workspace/head.js";
import { mayNameAttempt } from "../workspace/indexed-attempt.js";
import { keyOf } from "../workspace/stamped-cache.js";

/**
 * Cluster decisions made against the clusters summary kept for the workspace as it is now
 * (`fire cluster rename`, `merge`, `exclude` of a cluster, `undo`): the decisions file is
 * changed and the summary follows, with no workspace opened, no mining code and no schema
 * library loaded. Undefined whenever that summary is not current or cannot follow exactly
 * (the caller then takes the full path, which computes it).
 */

/** One line saying what a decision did (what `fire cluster undo` prints it undid). */
export { describeDecision } from "../mine/decisions-log.js";
/** The cluster `ref` names (app/clusters.ts re-exports it too), without the decisions' schema. */
export { clusterNamed };

/** What a change does: the decisions after it and the summary they give, from those before. */
type Change = (
  cur: readonly StoredDecision[],
) =>
  | { next: StoredDecision[]; summary: MineSummary | SummaryBytes }
  | undefined
  | Promise<{ next: StoredDecision[]; summary: MineSummary | SummaryBytes } | undefined>;

/**
 * The shape every decision here shares: under the decisions lock, while the file is still
 * the one the summary kept under `parts` was computed from (by its stamp: that file passed
 * the schema then, so it is rewritten without it, each decision in the schema's key order),
 * the file becomes what `change` gives; the summary kept is set aside for an undo of this
 * change, and the new one kept under the key of the file just written. False, with nothing
 * written, when the file changed meanwhile or `change` declines.
 */
async function changeKept(
  head: WorkspaceHead,
  parts: SummaryKeyParts,
  change: Change,
): Promise<boolean> {
  let summary: MineSummary | SummaryBytes | undefined;
  const done = await editKnownDecisions(head.dir, parts.decisions, async (cur) => {
    const r = await change(cur);
    summary = r?.summary;
    return r?.next;
  });
  if (!done || !summary) return false;
  setSummaryAside(head.dir, decisionsDigest(done.before), parts.decisions);
  await writeClustersSummary(head.dir, keyOf({ ...parts, decisions: done.stamp }), summary);
  return true;
}

/** `d` appended, when `accept` takes the decisions before it, gives `summary`. */
const appended =
  (
    d: Decision,
    summary: MineSummary,
    accept: (cur: readonly StoredDecision[]) => boolean | Promise<boolean> = () => true,
  ) =>
  async (cur: readonly StoredDecision[]) =>
    (await accept(cur)) ? { next: [...cur, d], summary } : undefined;

/** Attempt ids the schema would accept (decisions.ts `Ids`), checked without it. */
const validIds = (ids: readonly string[]) =>
  ids.length > 0 && ids.every((id) => typeof id === "string" && id.length > 0);

/** A cluster name the schema would accept. */
const validName = (name: string) => name.length >= 1 && name.length <= DECISION_NAME_MAX;

/**
 * Renames the cluster `ref` names (`clusterNamed`; its error when none) to `name`: records
 * the decision, timestamped, as `decide` does, and keeps the summary with the new name
 * (`renamedInSummary`). Undefined, with nothing written, when there is no current summary,
 * when the decision needs the schema's word, or when the decisions file changed meanwhile.
 */
export async function renameInKeptSummary(
  head: WorkspaceHead,
  ref: string,
  name: string,
  now = new Date(),
): Promise<{ cluster: Cluster; decision: Decision } | undefined> {
  const kept = await keptSummary(head);
  if (!kept) return undefined;
  const cluster = clusterNamed(kept.summary, ref);
  if (!validIds(cluster.attemptIds) || !validName(name)) return undefined;
  const decision: Decision = {
    op: "rename",
    members: cluster.attemptIds,
    name,
    at: now.toISOString(),
  };
  const summary = renamedInSummary(kept.summary, cluster, name);
  return (await changeKept(head, kept.parts, appended(decision, summary)))
    ? { cluster, decision }
    : undefined;
}

/**
 * Merges the clusters `refs` name (each by `clusterNamed`; its error when one names none;
 * a usage error when they name fewer than two), under `name` when given: records the
 * decision, timestamped, as `decide` does, and keeps the summary with the merged cluster
 * (`mergedInSummary`). Undefined, with nothing written, when there is no current summary,
 * a cluster's tally is not kept, the decision needs the schema's word, or the decisions
 * file changed meanwhile.
 */
export async function mergeInKeptSummary(
  head: WorkspaceHead,
  refs: readonly string[],
  name: string | undefined,
  now = new Date(),
): Promise<{ clusters: Cluster[]; decision: Decision } | undefined> {
  const kept = await keptSummary(head);
  if (!kept) return undefined;
  const clusters = [...new Set(refs.map((r) => clusterNamed(kept.summary, r)))];
  if (clusters.length < 2) throw new UsageError("merge needs two different clusters");
  if (!clusters.every((c) => validIds(c.attemptIds))) return undefined;
  if (name !== undefined && !validName(name)) return undefined;
  const merged = mergedInSummary(kept.summary, clusters, name);
  if (!merged) return undefined;
  const decision: Decision = {
    op: "merge",
    groups: clusters.map((c) => c.attemptIds),
    ...(name !== undefined ? { name } : {}),
    at: now.toISOString(),
  };
  return (await changeKept(head, kept.parts, appended(decision, merged.summary)))
    ? { clusters, decision }
    : undefined;
}

/**
 * Excludes the cluster `ref` names (`resolveCluster`) with `reason`: records the decision,
 * timestamped, as `decide` does, and keeps the summary without the cluster and with its
 * members among the user's exclusions (`excludedInSummary`). Undefined, with nothing
 * written, whenever the full path should answer: no current summary; `ref` naming no
 * cluster, or naming an attempt (the full path excludes that attempt alone, and gives the
 * errors); a reason the schema's word is needed on; hand outcomes (triage then decides task
 * faults as the summary may not have); a split that named one of the members (it may have
 * moved an attempt its label excludes into the cluster, whose exclusion then changes the
 * labeller's count); or a decisions file changed meanwhile.
 */
export async function excludeInKeptSummary(
  head: WorkspaceHead,
  ref: string,
  reason: string,
  now = new Date(),
): Promise<{ cluster: Cluster; decision: Decision } | undefined> {
  const kept = await keptSummary(head);
  if (kept?.parts.hand !== "none") return undefined;
  const cluster = resolveCluster(kept.summary.clusters, ref);
  if (!cluster || !validIds(cluster.attemptIds)) return undefined;
  if (reason.length < 1 || reason.length > DECISION_REASON_MAX) return undefined;
  if (mayNameAttempt(head, ref)) return undefined;
  const members = new Set(cluster.attemptIds);
  const decision: Decision = {
    op: "exclude",
    attemptIds: cluster.attemptIds,
    reason,
    at: now.toISOString(),
  };
  const summary = excludedInSummary(kept.summary, cluster, reason);
  // a split's member set is read back (one that cannot be is taken as naming a member)
  const noSplitOfMembers = async (cur: readonly StoredDecision[]) => {
    for (const d of cur) {
      if (d.op !== "split") continue;
      const ids = isMemberSetRef(d.attemptIds)
        ? await readMemberSet(head.dir, d.attemptIds)
        : d.attemptIds;
      if (!ids || ids.some((id) => members.has(id))) return false;
    }
    return true;
  };
  return (await changeKept(head, kept.parts, appended(decision, summary, noSplitOfMembers)))
    ? { cluster, decision }
    : undefined;
}

/**
 * Undoes the newest decision when the summary of the decisions before it was set aside by
 * one of the decisions above (`summaryAside`) and nothing else it depends on changed since:
 * the decision is removed and that summary kept again. Returns the decision undone;
 * undefined, with nothing written, otherwise (no current summary, no decision, no summary
 * set aside for what is left, a decisions file changed meanwhile): the full path undoes it,
 * and the next read computes the summary.
 */
export async function undoInKeptSummary(
  head: WorkspaceHead,
): Promise<{ undone: Decision } | undefined> {
  // the summary kept is not read: only whether it is current (the file it was computed from)
  const parts = await keptSummaryParts(head);
  if (!parts) return undefined;
  let undone: Decision | undefined;
  const ok = await changeKept(head, parts, async (cur) => {
    const next = cur.slice(0, -1);
    const last = cur.at(-1);
    const summary = last && summaryAside(head.dir, parts, decisionsDigest(next));
    // what it undid, every id spelled out (its member sets read back) as the full path says it
    undone = summary && (await resolvedDecision(head.dir, last));
    return summary && undone ? { next, summary } : undefined;
  });
  return ok && undone ? { undone } : undefined;
}
