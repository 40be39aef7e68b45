import { shellQuote } from "../shell-quote.js";
import type { Cluster } from "./cluster.js";
import type { ClusterSuggestions } from "./suggest.js";

/** One suggestion with the exact command that would apply it (nothing is applied here). */
export interface SuggestedChange {
  op: "rename" | "merge";
  clusterIds: string[];
  /** rename: the suggested name. */
  name?: string;
  /** rename: the cluster's current name. */
  currentName?: string;
  why: string;
  command: string;
}

/**
 * The changes an answer suggests, renames first, then merges: a rename keeps a cluster's
 * id (ids depend on members only), so running the commands in this order works. Renames
 * to the current name are dropped. `workspace` is added as `-w DIR` when given.
 */
export function suggestedChanges(
  value: ClusterSuggestions,
  clusters: readonly Cluster[],
  workspace?: string,
): SuggestedChange[] {
  const byId = new Map(clusters.map((c) => [c.id, c]));
  const ws = workspace ? ` -w ${shellQuote(workspace)}` : "";
  const out: SuggestedChange[] = [];
  for (const n of value.names) {
    const c = byId.get(n.clusterId);
    const name = n.name.trim();
    if (!c || c.name === name) continue;
    out.push({
      op: "rename",
      clusterIds: [c.id],
      name,
      currentName: c.name,
      why: n.why,
      command: `fire cluster rename${ws} ${c.id} ${shellQuote(name)}`,
    });
  }
  for (const m of value.merges) {
    const ids = [...new Set(m.clusterIds)].filter((id) => byId.has(id));
    if (ids.length < 2) continue;
    out.push({
      op: "merge",
      clusterIds: ids,
      why: m.why,
      command: `fire cluster merge${ws} ${ids.join(" ")}`,
    });
  }
  return out;
}

/** Text of `fire clusters --suggest`. */
export function renderSuggestions(
  changes: readonly SuggestedChange[],
  clusterCount: number,
): string {
  if (changes.length === 0)
    return `No changes suggested for ${clusterCount} cluster(s); nothing was changed.\n`;
  const out = [
    `Suggestions for ${clusterCount} cluster(s). Nothing was applied: run the commands you agree with (in this order).`,
    "",
  ];
  for (const c of changes) {
    out.push(
      c.op === "rename"
        ? `rename ${c.clusterIds[0]}: "${c.currentName}" → "${c.name}"`
        : `merge ${c.clusterIds.join(" + ")}`,
      `  why: ${c.why.replace(/\s+/g, " ").trim() || "-"}`,
      `  ${c.command}`,
      "",
    );
  }
  return `${out.join("\n").trimEnd()}\n`;
}
