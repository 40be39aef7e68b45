import { type Cluster, type ClusterInput, describeCluster, sortClusters } from "./cluster.js";
import type { Decision } from "./decisions.js";
import type { Label } from "./label.js";

export interface UserExcluded {
  attemptId: string;
  reason: string;
}

interface Group {
  members: Set<string>;
  name?: string;
}

function overlap(a: Set<string>, b: readonly string[]): number {
  let inter = 0;
  for (const x of b) if (a.has(x)) inter++;
  return inter === 0 ? 0 : inter / (a.size + b.length - inter);
}

function bestGroup(groups: Group[], snapshot: readonly string[]): Group | undefined {
  let best: Group | undefined;
  let score = 0;
  for (const g of groups) {
    const s = overlap(g.members, snapshot);
    if (s > score) {
      score = s;
      best = g;
    }
  }
  return best;
}

/** Members as a key (sorted ids): two groups with the same members describe alike. */
const memberKey = (ids: readonly string[]) => [...ids].sort().join("\n");

/**
 * Replays the user's decisions, in order, over automatic clusters. Decisions name
 * attempts, so they survive re-clustering: a rename or merge finds the cluster that
 * best overlaps the members it was made on; split and exclude move attempts.
 */
export function applyDecisions(
  auto: readonly Cluster[],
  decisions: readonly Decision[],
  input: Omit<ClusterInput, "threshold">,
): { clusters: Cluster[]; excluded: UserExcluded[] } {
  const byId = new Map<string, Label>(input.labels.map((l) => [l.attemptId, l]));
  let groups: Group[] = auto.map((c) => ({
    members: new Set(c.attemptIds),
    ...(c.named ? { name: c.name } : {}),
  }));
  const excluded = new Map<string, string>();
  const removeEverywhere = (ids: readonly string[]): void => {
    for (const g of groups) for (const id of ids) g.members.delete(id);
  };
  for (const d of decisions) {
    if (d.op === "rename") {
      const g = bestGroup(groups, d.members);
      if (g) g.name = d.name;
    } else if (d.op === "merge") {
      const targets = [
        ...new Set(d.groups.map((s) => bestGroup(groups, s)).filter((g): g is Group => !!g)),
      ];
      const [first, ...rest] = targets;
      if (!first) continue;
      for (const g of rest) for (const id of g.members) first.members.add(id);
      groups = groups.filter((g) => !rest.includes(g));
      if (d.name) first.name = d.name;
    } else if (d.op === "split") {
      const ids = d.attemptIds.filter((id) => byId.has(id) && !excluded.has(id));
      removeEverywhere(ids);
      if (ids.length) groups.push({ members: new Set(ids), ...(d.name ? { name: d.name } : {}) });
    } else {
      removeEverywhere(d.attemptIds);
      for (const id of d.attemptIds) excluded.set(id, d.reason);
    }
    groups = groups.filter((g) => g.members.size > 0);
  }
  // A group whose members are an automatic cluster's keeps that cluster's description (a
  // rename changes the name only): describing reads each evidence member's events.
  const autoByMembers = new Map(auto.map((c) => [memberKey(c.attemptIds), c]));
  const clusters = groups.map((g) => {
    const members = [...g.members].flatMap((id) => {
      const l = byId.get(id);
      return l ? [l] : [];
    });
    const same = autoByMembers.get(memberKey(members.map((l) => l.attemptId)));
    if (same) return g.name === undefined ? same : { ...same, name: g.name, named: true };
    return describeCluster(members, input, g.name);
  });
  return {
    clusters: sortClusters(clusters),
    excluded: [...excluded.entries()]
      .map(([attemptId, reason]) => ({ attemptId, reason }))
      .sort((a, b) => (a.attemptId < b.attemptId ? -1 : 1)),
  };
}

export { resolveCluster } from "./resolve-cluster.js";
