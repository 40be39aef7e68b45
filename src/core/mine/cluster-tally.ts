import { createHash } from "node:crypto";
import { FAMILY_TITLES, isFamilyId } from "../families.js";
import type { Cluster, EvidenceExcerpt } from "./cluster.js";
import type { InterventionPoint, Label } from "./label.js";
import { mechanismById } from "./mechanisms.js";

/**
 * What a cluster's description counts over its members' labels (`describeCluster`): how many
 * name each family, mechanism text, intervention point and mechanism id, the signatures of
 * each kind of mechanism, and the confidences. Counts add up, so the description of a union
 * of clusters (a merge) follows from their tallies and their descriptions, with no label
 * read; the clusters summary keeps one per cluster (core/mine/clusters-summary.ts). Loads no
 * mining code: no detector, no schema library.
 */

/** Value → how many members have it, sorted by value (one JSON form for equal tallies). */
export type Counts = [string, number][];

export interface ClusterTally {
  family: Counts;
  mechanism: Counts;
  point: Counts;
  /** Members' `mechanismId` (what the cluster's name is taken from). */
  mechanismId: Counts;
  /** Members' kind: `mechanismId ?? family` (the cluster's `mechanismId`). */
  kind: Counts;
  /** The signatures of each kind's members. */
  signatures: [string, Counts][];
  /** Confidence → how many members have it, ascending. */
  confidence: [number, number][];
}

const byKey = <K extends string | number>(a: [K, unknown], b: [K, unknown]) =>
  a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;

/** Counts as a sorted list. */
function sorted<K extends string | number>(m: ReadonlyMap<K, number>): [K, number][] {
  return [...m.entries()].sort(byKey);
}

const bump = <K>(m: Map<K, number>, k: K, n = 1) => m.set(k, (m.get(k) ?? 0) + n);

/** The tally of these member labels. */
export function tallyOf(members: readonly Label[]): ClusterTally {
  const family = new Map<string, number>();
  const mechanism = new Map<string, number>();
  const point = new Map<string, number>();
  const mechanismId = new Map<string, number>();
  const kind = new Map<string, number>();
  const signatures = new Map<string, Map<string, number>>();
  const confidence = new Map<number, number>();
  for (const l of members) {
    if (l.family) bump(family, l.family);
    bump(mechanism, l.mechanism);
    bump(point, l.interventionPoint);
    if (l.mechanismId) bump(mechanismId, l.mechanismId);
    const k = l.mechanismId ?? l.family;
    if (k) {
      bump(kind, k);
      if (l.signature) {
        const s = signatures.get(k) ?? new Map<string, number>();
        signatures.set(k, bump(s, l.signature));
      }
    }
    bump(confidence, l.confidence);
  }
  return {
    family: sorted(family),
    mechanism: sorted(mechanism),
    point: sorted(point),
    mechanismId: sorted(mechanismId),
    kind: sorted(kind),
    signatures: [...signatures.entries()]
      .map(([k, s]): [string, Counts] => [k, sorted(s)])
      .sort(byKey),
    confidence: sorted(confidence),
  };
}

/** The tally of a union of disjoint member sets: the counts added. */
export function addTallies(ts: readonly ClusterTally[]): ClusterTally {
  const add = <K extends string | number>(lists: readonly (readonly [K, number][])[]) => {
    const m = new Map<K, number>();
    for (const l of lists) for (const [k, n] of l) bump(m, k, n);
    return sorted(m);
  };
  const kinds = new Map<string, Counts[]>();
  for (const t of ts) for (const [k, s] of t.signatures) kinds.set(k, [...(kinds.get(k) ?? []), s]);
  return {
    family: add(ts.map((t) => t.family)),
    mechanism: add(ts.map((t) => t.mechanism)),
    point: add(ts.map((t) => t.point)),
    mechanismId: add(ts.map((t) => t.mechanismId)),
    kind: add(ts.map((t) => t.kind)),
    signatures: [...kinds.entries()].map(([k, s]): [string, Counts] => [k, add(s)]).sort(byKey),
    confidence: add(ts.map((t) => t.confidence)),
  };
}

/** Most distinct values a kept tally holds per count (free-text mechanisms can be many). */
const KEPT_MAX = 64;

/** The tally as the summary keeps it: undefined when it would be large (a merge then reads labels). */
export function keptTally(t: ClusterTally): ClusterTally | undefined {
  const lists = [t.family, t.mechanism, t.point, t.mechanismId, t.kind, t.confidence];
  const big =
    lists.some((l) => l.length > KEPT_MAX) || t.signatures.some(([, s]) => s.length > KEPT_MAX);
  return big ? undefined : t;
}

/** Most common first, then by value: the order of a cluster's facets. */
const ranked = (c: Counts): Counts => [...c].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));

/** The most common value (ties: the first by value), as `describeCluster` picks it. */
const majority = (c: Counts): string | undefined => ranked(c)[0]?.[0];

/**
 * Mean confidence in steps of 0.01, summed in ascending order: the same for the same
 * members whatever order decisions put them in.
 */
function meanConfidence(c: readonly [number, number][]): number | undefined {
  let sum = 0;
  let n = 0;
  for (const [v, k] of c)
    for (let i = 0; i < k; i++) {
      sum += v;
      n++;
    }
  return n > 0 ? Math.round((100 * sum) / n) / 100 : undefined;
}

/** The dominant mechanism's name: a family title, a registry name, or the text. */
function clusterName(t: ClusterTally, family: string | undefined, mechanism: string): string {
  if (family && isFamilyId(family)) return FAMILY_TITLES[family];
  const known = mechanismById(majority(t.mechanismId));
  if (!known) return mechanism || "unnamed mechanism";
  return known.name.charAt(0).toUpperCase() + known.name.slice(1);
}

/** What a cluster's description takes from its members beyond the tally. */
export interface Described {
  /** Member attempt ids, sorted. */
  ids: string[];
  taskIds: string[];
  detectors: { id: string; count: number }[];
  evidence: EvidenceExcerpt[];
}

/** `c-` + 10 hex of sha256 over the sorted member ids: same members, same id. */
export function clusterId(memberIds: readonly string[]): string {
  const h = createHash("sha256")
    .update([...memberIds].sort().join("\n"))
    .digest("hex");
  return `c-${h.slice(0, 10)}`;
}

/** Detector → how many members it hit, most first (then by id). */
export function detectorCounts(det: ReadonlyMap<string, number>): { id: string; count: number }[] {
  return [...det.entries()]
    .map(([id, count]) => ({ id, count }))
    .sort((a, b) => b.count - a.count || (a.id < b.id ? -1 : 1));
}

/** The shown shape of a cluster from its members' tally (`describeCluster`'s counting). */
export function describeTallied(d: Described, t: ClusterTally, id: string, name?: string): Cluster {
  const famRaw = majority(t.family);
  const family = famRaw && isFamilyId(famRaw) ? famRaw : undefined;
  const mechanism = majority(t.mechanism) ?? "";
  const cluster: Cluster = {
    id,
    name: name ?? clusterName(t, family, mechanism),
    named: name !== undefined,
    mechanism,
    interventionPoint: (majority(t.point) as InterventionPoint | undefined) ?? "none",
    attemptIds: d.ids,
    taskIds: d.taskIds,
    detectors: d.detectors,
    evidence: d.evidence,
  };
  if (family) cluster.family = family;
  const mechanismId = majority(t.kind);
  if (mechanismId) {
    cluster.mechanismId = mechanismId;
    const facets = ranked(t.signatures.find(([k]) => k === mechanismId)?.[1] ?? []);
    const signature = facets[0]?.[0];
    if (signature) cluster.signature = signature;
    if (facets.length > 0)
      cluster.facets = facets.map(([signature, count]) => ({ signature, count }));
  }
  const confidence = meanConfidence(t.confidence);
  if (confidence !== undefined) cluster.confidence = confidence;
  return cluster;
}

/** Strongest evidence first (mean confidence, in steps of 0.05), then largest, then by id. */
export function sortClusters(cs: Cluster[]): Cluster[] {
  const band = (c: Cluster) => Math.round((c.confidence ?? 0) * 20);
  return cs.sort(
    (a, b) =>
      band(b) - band(a) || b.attemptIds.length - a.attemptIds.length || (a.id < b.id ? -1 : 1),
  );
}
