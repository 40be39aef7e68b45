import { NotFoundError } from "../errors.js";
import type { Cluster } from "./cluster.js";

/** Finds a cluster by id, id prefix (≥4 chars) or name (case-insensitive). */
export function resolveCluster(clusters: readonly Cluster[], ref: string): Cluster | undefined {
  const exact = clusters.find((c) => c.id === ref);
  if (exact) return exact;
  const lower = ref.toLowerCase();
  const byName = clusters.filter((c) => c.name.toLowerCase() === lower);
  if (byName.length === 1) return byName[0];
  const byPrefix =
    ref.length >= 4
      ? clusters.filter((c) => c.id.startsWith(ref) || c.id.startsWith(`c-${ref}`))
      : [];
  return byPrefix.length === 1 ? byPrefix[0] : undefined;
}

/**
 * The cluster `ref` names — its id, its exact name or an id prefix of 4+ characters — or a
 * usage error listing the known ids.
 */
export function clusterNamed(
  mined: { readonly clusters: readonly Cluster[] },
  ref: string,
): Cluster {
  const c = resolveCluster(mined.clusters, ref);
  if (c) return c;
  throw new NotFoundError(
    `no cluster matches ${ref} (use an id, an id prefix or an exact name; known: ${mined.clusters.map((x) => x.id).join(", ")})`,
  );
}
