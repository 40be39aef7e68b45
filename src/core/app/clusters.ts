import { NotFoundError } from "../errors.js";
import type { Cluster } from "../mine/cluster.js";
import { currentSummary } from "../mine/clusters-summary.js";
import { appendDecision, type Decision } from "../mine/decisions.js";
import type { MineResult } from "../mine/mine.js";
import type { MineSummary } from "../mine/render.js";
import { resolveCluster } from "../mine/resolve-cluster.js";
import type { Workspace } from "../workspace/load.js";

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
export function clusterNamed(mined: Pick<MineResult, "clusters">, ref: string): Cluster {
  const c = resolveCluster(mined.clusters, ref);
  if (c) return c;
  throw new NotFoundError(
    `no cluster matches ${ref} (use an id, an id prefix or an exact name; known: ${mined.clusters.map((x) => x.id).join(", ")})`,
  );
}

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
