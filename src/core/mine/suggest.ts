import { z } from "zod";
import { redact } from "../redact.js";
import type { Cluster } from "./cluster.js";
import type { Label } from "./label.js";

/**
 * LLM suggestions over the current clusters: better names and merges. They are advice
 * only: fire prints the `fire cluster rename|merge` commands that would apply them and
 * never records a decision itself.
 */
export const ClusterSuggestions = z.strictObject({
  names: z.array(
    z.strictObject({
      clusterId: z.string(),
      name: z.string().min(1).max(80),
      why: z.string().max(400),
    }),
  ),
  merges: z.array(
    z.strictObject({
      clusterIds: z.array(z.string()),
      why: z.string().max(400),
    }),
  ),
});
export type ClusterSuggestions = z.infer<typeof ClusterSuggestions>;

/** Bump when the prompt or the schema's meaning changes: old cached answers stop matching. */
export const SUGGEST_SCHEMA_VERSION = "cluster-suggestions@1";

/** One chat message (the shape src/llm sends). */
export interface SuggestMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** Most clusters and texts one prompt shows; the prompt stays small whatever the corpus. */
export const SUGGEST_LIMITS = {
  clusters: 60,
  mechanismsPerCluster: 5,
  evidencePerCluster: 2,
  textChars: 160,
} as const;

export const SUGGEST_SYSTEM_PROMPT = [
  "You review mechanism clusters mined from FAILED coding-agent attempts for FIRE.",
  "Each cluster groups attempts that lost a reachable result through the same procedure",
  "(e.g. stopping without a check, destroying a working deployment, mutating evidence).",
  "Suggest (1) a short, specific name (at most 8 words, a noun phrase about the procedure,",
  "never a task name) for clusters whose current name is vague, and (2) merges of clusters",
  "that describe the same mechanism and would be fixed by the same runtime rule.",
  "Only cite cluster ids exactly as given. Leave clusters named by the user alone unless",
  "the name is clearly wrong. Empty lists are a fine answer. Give a one-sentence why each.",
  "Answer with one JSON object only: {names: [{clusterId, name, why}], merges: [{clusterIds, why}]}.",
].join("\n");

function clip(text: string, n: number): string {
  const one = redact(text).replace(/\s+/g, " ").trim();
  return one.length <= n ? one : `${one.slice(0, n - 1)}…`;
}

/** The distinct mechanism texts of a cluster's members, most frequent first. */
function mechanismsOf(c: Cluster, labels: ReadonlyMap<string, Label>): string[] {
  const counts = new Map<string, number>();
  for (const id of c.attemptIds) {
    const m = labels.get(id)?.mechanism.trim();
    if (m) counts.set(m, (counts.get(m) ?? 0) + 1);
  }
  if (counts.size === 0 && c.mechanism) counts.set(c.mechanism, c.attemptIds.length);
  return [...counts.entries()]
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .slice(0, SUGGEST_LIMITS.mechanismsPerCluster)
    .map(([m, n]) => `${clip(m, SUGGEST_LIMITS.textChars)} (×${n})`);
}

/** A compact, redacted summary of one cluster as prompt text. */
export function clusterSummary(c: Cluster, labels: ReadonlyMap<string, Label>): string {
  const lines = [
    `### ${c.id}`,
    `name: ${clip(c.name, 100)}${c.named ? " (named by the user)" : ""}`,
    `family: ${c.family ?? "-"} · intervention point: ${c.interventionPoint} · attempts: ${c.attemptIds.length} · tasks: ${c.taskIds.length}`,
    `mechanisms: ${mechanismsOf(c, labels).join("; ") || "-"}`,
    `detectors: ${c.detectors.map((d) => `${d.id}×${d.count}`).join(", ") || "-"}`,
  ];
  for (const e of c.evidence.slice(0, SUGGEST_LIMITS.evidencePerCluster))
    lines.push(`evidence: ${clip(e.excerpt, SUGGEST_LIMITS.textChars)}`);
  return lines.join("\n");
}

/**
 * The prompt: fixed instructions plus one redacted summary per cluster. Deterministic
 * for the same clusters and labels, so an unchanged workspace hits the answer cache.
 */
export function suggestMessages(
  clusters: readonly Cluster[],
  labels: ReadonlyMap<string, Label>,
): SuggestMessage[] {
  const shown = clusters.slice(0, SUGGEST_LIMITS.clusters);
  const more = clusters.length - shown.length;
  const body = shown.map((c) => clusterSummary(c, labels)).join("\n\n");
  return [
    { role: "system", content: SUGGEST_SYSTEM_PROMPT },
    {
      role: "user",
      content: `${shown.length} cluster(s)${more > 0 ? ` (the ${more} smallest are not shown)` : ""}:\n\n${body}`,
    },
  ];
}

/**
 * Problems with an answer (empty when fine): every cited cluster id must be one of
 * `clusters`; a cluster is named at most once; a merge joins two or more distinct
 * clusters and no cluster is in two merges; names are single lines.
 */
export function checkSuggestions(
  value: ClusterSuggestions,
  clusters: readonly Cluster[],
): string[] {
  const known = new Set(clusters.map((c) => c.id));
  const problems: string[] = [];
  const unknown = new Set<string>();
  const named = new Set<string>();
  value.names.forEach((n, i) => {
    if (!known.has(n.clusterId)) unknown.add(n.clusterId);
    else if (named.has(n.clusterId))
      problems.push(`names[${i}]: cluster ${n.clusterId} is named twice`);
    named.add(n.clusterId);
    if (!n.name.trim() || /[\u0000-\u001f]/.test(n.name))
      problems.push(`names[${i}].name must be one non-empty line`);
  });
  const merged = new Set<string>();
  value.merges.forEach((m, i) => {
    const ids = [...new Set(m.clusterIds)];
    for (const id of ids) if (!known.has(id)) unknown.add(id);
    if (ids.length < 2) problems.push(`merges[${i}] must join at least two different clusters`);
    for (const id of ids) {
      if (merged.has(id)) problems.push(`merges[${i}]: cluster ${id} is already in another merge`);
      merged.add(id);
    }
  });
  if (unknown.size > 0) {
    const list = [...known].slice(0, SUGGEST_LIMITS.clusters).join(", ");
    problems.unshift(
      `unknown cluster id(s) ${[...unknown].map((u) => `"${clip(u, 40)}"`).join(", ")}; use only: ${list}`,
    );
  }
  return problems;
}
