import type { Cluster } from "../mine/cluster.js";
import {
  excludedInSummary,
  keptSummary,
  renamedInSummary,
  writeClustersSummary,
} from "../mine/clusters-summary.js";
import type { Decision } from "../mine/decisions.js";
import {
  appendToKnownDecisions,
  DECISION_NAME_MAX,
  DECISION_REASON_MAX,
} from "../mine/decisions-log.js";
import { clusterNamed, resolveCluster } from "../mine/resolve-cluster.js";
import type { WorkspaceHead } from "../workspace/head.js";
import { indexedIds } from "../workspace/indexed-attempt.js";
import { keyOf } from "../workspace/stamped-cache.js";

/**
 * Cluster decisions made against the clusters summary kept for the workspace as it is now
 * (`fire cluster rename`, `fire cluster exclude` of a cluster): the decision is appended to the log and the summary follows,
 * with no workspace opened, no mining code and no schema library loaded. Undefined whenever
 * that summary is not current (the caller then takes the full path, which computes it).
 */

/** The cluster `ref` names (app/clusters.ts re-exports it too), without the decisions' schema. */
export { clusterNamed };

/** A rename the schema would accept (decisions.ts `Decision`), checked without it. */
const validRename = (members: readonly string[], name: string) =>
  members.length > 0 &&
  members.every((id) => typeof id === "string" && id.length > 0) &&
  name.length >= 1 &&
  name.length <= DECISION_NAME_MAX;

/**
 * Renames the cluster `ref` names (`clusterNamed`; its error when none) to `name`: records
 * the decision, timestamped, as `decide` does, and keeps the summary with the new name under
 * the key of the decisions file just written, so the next `fire clusters` reads it. Undefined,
 * with nothing written, when there is no current summary, when the decision needs the
 * schema's word, or when the decisions file changed since the summary was computed.
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
  if (!validRename(cluster.attemptIds, name)) return undefined;
  const decision: Decision = {
    op: "rename",
    members: cluster.attemptIds,
    name,
    at: now.toISOString(),
  };
  const stamp = await appendToKnownDecisions(head.dir, decision, kept.parts.decisions);
  if (stamp === undefined) return undefined;
  await writeClustersSummary(
    head.dir,
    keyOf({ ...kept.parts, decisions: stamp }),
    renamedInSummary(kept.summary, cluster, name),
  );
  return { cluster, decision };
}

/** An exclude the schema would accept (decisions.ts `Decision`), checked without it. */
const validExclude = (ids: readonly string[], reason: string) =>
  ids.length > 0 &&
  ids.every((id) => typeof id === "string" && id.length > 0) &&
  reason.length >= 1 &&
  reason.length <= DECISION_REASON_MAX;

/**
 * Excludes the cluster `ref` names (`resolveCluster`) with `reason`: records the decision,
 * timestamped, as `decide` does, and keeps the summary without the cluster and with its
 * members among the user's exclusions (`excludedInSummary`) under the key of the decisions
 * file just written. Undefined, with nothing written, whenever the full path should answer:
 * no current summary; `ref` naming no cluster, or naming an attempt (the full path excludes
 * that attempt alone, and gives the errors); a reason the schema's word is needed on; hand
 * outcomes (triage then decides task faults as the summary may not have); a split that named
 * one of the members (it may have moved an attempt its label excludes into the cluster, whose
 * exclusion then changes the labeller's count); or a decisions file changed meanwhile.
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
  if (!cluster || !validExclude(cluster.attemptIds, reason)) return undefined;
  const ids = indexedIds(head);
  if (!ids || ids.includes(ref)) return undefined;
  const members = new Set(cluster.attemptIds);
  const decision: Decision = {
    op: "exclude",
    attemptIds: cluster.attemptIds,
    reason,
    at: now.toISOString(),
  };
  const stamp = await appendToKnownDecisions(
    head.dir,
    decision,
    kept.parts.decisions,
    (cur) => !cur.some((d) => d.op === "split" && d.attemptIds.some((id) => members.has(id))),
  );
  if (stamp === undefined) return undefined;
  await writeClustersSummary(
    head.dir,
    keyOf({ ...kept.parts, decisions: stamp }),
    excludedInSummary(kept.summary, cluster, reason),
  );
  return { cluster, decision };
}
