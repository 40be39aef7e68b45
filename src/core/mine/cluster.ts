import { createHash } from "node:crypto";
import { FAMILY_TITLES, type FamilyId, isFamilyId } from "../families.js";
import type { Attempt } from "../model/attempt.js";
import { redact } from "../redact.js";
import { detectorById } from "./detectors/index.js";
import type { DetectorHit } from "./detectors/types.js";
import { type InterventionPoint, inScope, type Label } from "./label.js";
import { mechanismById } from "./mechanisms.js";
import { agglomerate, tfidf, words } from "./tfidf.js";

export interface EvidenceExcerpt {
  attemptId: string;
  eventIndex: number;
  excerpt: string;
}

export interface Cluster {
  /** `c-` + 10 hex of sha256 over the sorted member ids: same members, same id. */
  id: string;
  name: string;
  /** True when the name comes from a user rename. */
  named: boolean;
  family?: FamilyId;
  mechanism: string;
  /** Dominant known mechanism id of the members (core/mine/mechanisms.ts), when any. */
  mechanismId?: string;
  /** Dominant signature (normalized evidence) among members with that mechanism. */
  signature?: string;
  /**
   * Facets inside the mechanism: each signature (kind of missing file, tool and error, …)
   * with its member count, most common first. A cluster is one mechanism at one
   * intervention point; file types and tools are facets, not clusters.
   */
  facets?: { signature: string; count: number }[];
  /** Mean label confidence of the members (evidence strength): clusters sort by it. */
  confidence?: number;
  interventionPoint: InterventionPoint;
  attemptIds: string[];
  taskIds: string[];
  detectors: { id: string; count: number }[];
  evidence: EvidenceExcerpt[];
}

export interface ClusterInput {
  labels: readonly Label[];
  attempts: ReadonlyMap<string, Attempt>;
  hits: ReadonlyMap<string, readonly DetectorHit[]>;
  threshold: number;
}

export function clusterId(memberIds: readonly string[]): string {
  const h = createHash("sha256")
    .update([...memberIds].sort().join("\n"))
    .digest("hex");
  return `c-${h.slice(0, 10)}`;
}

/** The tokens a label contributes to its mechanism vector. */
export function labelTokens(l: Label): string[] {
  const mechanismDetectors = l.detectorIds.filter((d) => detectorById(d)?.capability !== true);
  return [
    ...words(l.mechanism),
    ...mechanismDetectors.map((d) => `det:${d}`),
    `point:${l.interventionPoint}`,
    ...(l.family ? [`fam:${l.family}`, `fam:${l.family}`] : []),
  ];
}

function majority<T extends string>(values: readonly T[]): T | undefined {
  const c = new Map<T, number>();
  for (const v of values) c.set(v, (c.get(v) ?? 0) + 1);
  return [...c.entries()].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))[0]?.[0];
}

function excerptOf(a: Attempt | undefined, idx: number): string {
  const e = a?.events.find((x) => x.index === idx);
  if (!e) return "";
  const text = e.command ?? e.input ?? e.output ?? "";
  // Excerpts quote commands: secrets are redacted before they are shown or stored.
  return redact(
    `[${e.kind}${e.tool ? ` ${e.tool}` : ""}] ${text.replace(/\s+/g, " ").trim()}`,
  ).slice(0, 200);
}

/** The dominant mechanism's name: a family title, a registry name (+ signature), or the text. */
function clusterName(
  members: readonly Label[],
  family: FamilyId | undefined,
  mechanism: string,
): string {
  if (family) return FAMILY_TITLES[family];
  const id = majority(members.flatMap((l) => (l.mechanismId ? [l.mechanismId] : [])));
  const known = mechanismById(id);
  if (!known) return mechanism || "unnamed mechanism";
  return known.name.charAt(0).toUpperCase() + known.name.slice(1);
}

/** Builds the shown shape of one cluster from its member labels. */
export function describeCluster(
  members: readonly Label[],
  input: Omit<ClusterInput, "labels" | "threshold">,
  name?: string,
): Cluster {
  const ids = members.map((l) => l.attemptId).sort();
  const famRaw = majority(members.flatMap((l) => (l.family ? [l.family] : [])));
  const family = famRaw && isFamilyId(famRaw) ? famRaw : undefined;
  const mechanism = majority(members.map((l) => l.mechanism)) ?? "";
  const det = new Map<string, number>();
  for (const l of members) for (const d of l.detectorIds) det.set(d, (det.get(d) ?? 0) + 1);
  const evidence: EvidenceExcerpt[] = [];
  for (const l of [...members].sort((a, b) => (a.attemptId < b.attemptId ? -1 : 1))) {
    if (evidence.length >= 3) break;
    const idx =
      l.preFailureState?.eventIndex ??
      input.hits
        .get(l.attemptId)
        ?.find((h) => h.family)
        ?.eventIndices.at(-1);
    if (idx === undefined) continue;
    const excerpt = excerptOf(input.attempts.get(l.attemptId), idx);
    if (excerpt) evidence.push({ attemptId: l.attemptId, eventIndex: idx, excerpt });
  }
  const taskIds = [...new Set(ids.map((id) => input.attempts.get(id)?.taskId ?? "?"))].sort();
  const cluster: Cluster = {
    id: clusterId(ids),
    name: name ?? clusterName(members, family, mechanism),
    named: name !== undefined,
    mechanism,
    interventionPoint: majority(members.map((l) => l.interventionPoint)) ?? "none",
    attemptIds: ids,
    taskIds,
    detectors: [...det.entries()]
      .map(([id, count]) => ({ id, count }))
      .sort((a, b) => b.count - a.count || (a.id < b.id ? -1 : 1)),
    evidence,
  };
  if (family) cluster.family = family;
  const mechanismId = majority(
    members.flatMap((l) => {
      const id = l.mechanismId ?? l.family;
      return id ? [id] : [];
    }),
  );
  if (mechanismId) {
    cluster.mechanismId = mechanismId;
    const signature = majority(
      members.flatMap((l) =>
        (l.mechanismId ?? l.family) === mechanismId && l.signature ? [l.signature] : [],
      ),
    );
    if (signature) cluster.signature = signature;
    const counts = new Map<string, number>();
    for (const l of members)
      if ((l.mechanismId ?? l.family) === mechanismId && l.signature)
        counts.set(l.signature, (counts.get(l.signature) ?? 0) + 1);
    if (counts.size > 0)
      cluster.facets = [...counts.entries()]
        .map(([signature, count]) => ({ signature, count }))
        .sort((a, b) => b.count - a.count || (a.signature < b.signature ? -1 : 1));
  }
  if (members.length > 0)
    cluster.confidence =
      Math.round((100 * members.reduce((s, l) => s + l.confidence, 0)) / members.length) / 100;
  return cluster;
}

/**
 * Clusters the labels that name a mechanism, by mechanism (not by task): labels that name
 * a known mechanism (or family) group by (mechanism id, intervention point), with their
 * signatures (file kinds, tools, error texts) as facets inside the cluster, so one
 * mechanism is one cluster whatever file type it lost, and LLM and heuristic labels of the
 * same mechanism share it. Labels with only a free-text mechanism are grouped by TF-IDF
 * over mechanism words + detector ids + intervention point, cosine similarity,
 * average-linkage agglomeration at `threshold`. Labels kept for review are in no cluster
 * (`reviewIds`). Deterministic for the same input.
 */
export function clusterLabels(input: ClusterInput): Cluster[] {
  const labels = input.labels
    .filter(isNamedOrFreeText)
    .sort((a, b) => (a.attemptId < b.attemptId ? -1 : 1));
  const bySignature = new Map<string, Label[]>();
  const freeText: Label[] = [];
  for (const l of labels) {
    if (!l.mechanismId && !l.family) {
      freeText.push(l);
      continue;
    }
    const key = `${l.mechanismId ?? l.family}|${l.interventionPoint}`;
    bySignature.set(key, [...(bySignature.get(key) ?? []), l]);
  }
  const folded = new Map<string, Label[]>();
  for (const l of freeText) {
    const key = [...labelTokens(l)].sort().join(" ");
    folded.set(key, [...(folded.get(key) ?? []), l]);
  }
  const keys = [...folded.keys()].sort();
  const vectors = tfidf(keys.map((k) => k.split(" ")));
  const weights = keys.map((k) => folded.get(k)?.length ?? 1);
  const groups = keys.length ? agglomerate(vectors, input.threshold, weights) : [];
  return sortClusters([
    ...[...bySignature.keys()].sort().map((k) => describeCluster(bySignature.get(k) ?? [], input)),
    ...groups.map((g) =>
      describeCluster(
        g.flatMap((i) => folded.get(keys[i] as string) ?? []),
        input,
      ),
    ),
  ]);
}

/** In scope and named (by a known mechanism, or an LLM's free-text mechanism). */
function isNamedOrFreeText(l: Label): boolean {
  return inScope(l) && l.status !== "needs_review" && (l.kind !== undefined || l.isProceduralLoss);
}

/** The attempts kept in scope for review (no mechanism named), by attempt id. */
export function reviewIds(labels: readonly Label[]): string[] {
  return labels
    .filter((l) => inScope(l) && l.status === "needs_review")
    .map((l) => l.attemptId)
    .sort();
}

/** Strongest evidence first (mean confidence, in steps of 0.05), then largest, then by id. */
export function sortClusters(cs: Cluster[]): Cluster[] {
  const band = (c: Cluster) => Math.round((c.confidence ?? 0) * 20);
  return cs.sort(
    (a, b) =>
      band(b) - band(a) || b.attemptIds.length - a.attemptIds.length || (a.id < b.id ? -1 : 1),
  );
}
