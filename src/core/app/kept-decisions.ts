import type { Cluster } from "../mine/cluster.js";
import { keptSummary, renamedInSummary, writeClustersSummary } from "../mine/clusters-summary.js";
import type { Decision } from "../mine/decisions.js";
import { appendToKnownDecisions } from "../mine/decisions-log.js";
import { clusterNamed } from "../mine/resolve-cluster.js";
import type { WorkspaceHead } from "../workspace/head.js";
import { keyOf } from "../workspace/stamped-cache.js";

/**
 * Cluster decisions made against the clusters summary kept for the workspace as it is now
 * (`fire cluster rename`): the decision is appended to the log and the summary follows,
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
  name.length <= 200;

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
