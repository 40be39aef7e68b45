import type { Cluster } from "../mine/cluster.js";
import type { Attempt } from "../model/attempt.js";
import type { CandidateInput, Pattern } from "../policy/schema.js";

/** A cluster as the drafters read it (with its dominant mechanism id and signature). */
export type DraftCluster = Cluster;

/** Parameters a template takes from the cluster's evidence (shapes, never task content). */
export interface TemplateParams {
  /** Artifact kinds (extensions, no dot) the cluster's signature or members' writes show. */
  kinds: string[];
  /** Tool calls after which the deadline nudge fires (a share of the members' effort). */
  afterCalls: number;
  /** Identical failing results before the change-of-approach nudge. */
  repeats: number;
}

/** The mechanics of a candidate: everything but identity, lifecycle and eligibility. */
export type Mechanics = Omit<
  CandidateInput,
  "id" | "version" | "status" | "lineage" | "history" | "eligibility" | "$schema"
>;

/** A parameterized template for one mechanism of the registry (core/mine/mechanisms.ts). */
export interface MechanismTemplate {
  mechanismId: string;
  /** `tmpl-<mechanism>`, shown in draft notes. */
  id: string;
  version: number;
  /** Eligibility the mechanics need whatever is learned (all must match). */
  requires: Pattern[];
  /** Eligibility used when nothing can be learned from the task texts (any must match). */
  fallback: Pattern[];
  build(p: TemplateParams): Mechanics;
}

/** Members' tool calls are counted to place the deadline nudge: a quarter, within 8..60. */
export const DEADLINE_SHARE = 0.25;
export const DEADLINE_MIN = 8;
export const DEADLINE_MAX = 60;
/** The "after the 3rd identical failing result". */
export const REPEATS = 3;

const KIND = /\.([A-Za-z][A-Za-z0-9]{0,5})\b/g;

/** Template parameters from a cluster's signature and its members' recorded actions. */
export function paramsOf(
  cluster: Pick<DraftCluster, "signature">,
  members: readonly Attempt[],
): TemplateParams {
  const kinds = new Set<string>();
  for (const m of (cluster.signature ?? "").matchAll(KIND)) kinds.add(m[1]!.toLowerCase());
  if (kinds.size === 0)
    for (const a of members)
      for (const e of a.events)
        for (const w of e.writes ?? []) {
          const k = /\.([A-Za-z][A-Za-z0-9]{0,5})$/.exec(w);
          if (k) kinds.add(k[1]!.toLowerCase());
        }
  const calls = members
    .map((a) => a.events.filter((e) => e.kind === "tool_call").length)
    .filter((n) => n > 0);
  const least = calls.length > 0 ? Math.min(...calls) : DEADLINE_MIN / DEADLINE_SHARE;
  const afterCalls = Math.min(
    DEADLINE_MAX,
    Math.max(DEADLINE_MIN, Math.round(least * DEADLINE_SHARE)),
  );
  return { kinds: [...kinds].sort(), afterCalls, repeats: REPEATS };
}
