import { createHash } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { coreCodeStamp } from "../workspace/code-stamp.js";
import type { Workspace } from "../workspace/load.js";
import { workspacePaths } from "../workspace/paths.js";
import { readStamped, writeStamped } from "../workspace/stamped-cache.js";
import type { DetectorHit } from "./detectors/types.js";
import type { Fault } from "./faults/types.js";
import type { Label } from "./label.js";
import { storedLabels } from "./label-cache.js";
import { type MineResult, type MiningTriageInputs, miningTriage } from "./mine.js";
import type { TriageResult } from "./triage.js";

export { coreCodeStamp } from "../workspace/code-stamp.js";
export { fileStamp } from "../workspace/stamped-cache.js";

/**
 * The last clustering of the cached labels, before the user's decisions, kept beside the
 * workspace index (`.fire/cache/mining.json`, safe to delete). Mining is a black box here:
 * the entry is keyed by everything it reads — the index's digest (the attempts), the label
 * store's stamp, the hand outcomes, the config and the code of core/ — and served only
 * while that key is unchanged. The user's decisions are not in the key: they are applied
 * to this on every read (core/mine/run-mining.ts), so a decision costs no re-clustering.
 *
 * What other files already hold is not kept twice: the labels are the label store's (the
 * entry names their attempts; the key stamps the store, and the workbench's session has
 * read them already), and the two triages are computed again on read from the attempts,
 * the labels and the index's faults (~0.1 s each at 100,000 attempts, where they were two
 * thirds of a 101 MB file). A triage is kept only when computing it so would not give it
 * back exactly (checked when the entry is written).
 */
const VERSION = 3;

export function miningCacheFile(dir: string): string {
  return workspacePaths(dir).miningCache;
}

export interface BaseKeyParts {
  /** The workspace index's digest (its attempts). */
  digest: string;
  labeler: string;
  /** The label store file's stamp (`fileStamp`). */
  store: string;
  hand: ReadonlyMap<string, string>;
  config: unknown;
}

export function baseKey(p: BaseKeyParts): string {
  return createHash("sha256")
    .update(
      JSON.stringify({
        v: VERSION,
        code: coreCodeStamp(),
        digest: p.digest,
        labeler: p.labeler,
        store: p.store,
        hand: [...p.hand].sort(),
        config: p.config,
      }),
    )
    .digest("hex");
}

/** The stored shape, checked before use (a cache is never trusted). */
const Stored = z.object({
  v: z.literal(VERSION),
  key: z.string(),
  result: z
    .object({
      labeler: z.enum(["heuristic", "llm"]),
      /** The labels' attempt ids, in the result's order (the labels are the store's). */
      labelIds: z.array(z.string()),
      /** Only when computing them again would not give them back (`triagesOf`). */
      triages: z.object({ triage: z.looseObject({}), finalTriage: z.looseObject({}) }).optional(),
      hits: z.array(z.tuple([z.string(), z.array(z.unknown())])),
      clusters: z.array(
        z.object({ id: z.string(), attemptIds: z.array(z.string()) }).passthrough(),
      ),
      review: z.array(z.string()),
      userExcluded: z.array(z.object({ attemptId: z.string(), reason: z.string() })),
      labelled: z.number(),
      failed: z.number(),
      reused: z.number(),
      reusedFailed: z.number(),
    })
    .passthrough(),
});

/** What of the workspace the cache reads besides its file (the triages are computed over it). */
export type CachedFrom = Pick<Workspace, "dir" | "attempts" | "config" | "index">;

type Triages = Pick<MineResult, "triage" | "finalTriage">;

/**
 * A run's two triages as a read computes them again: over the workspace's attempts with the
 * run's labels and the hand outcomes, taking the outside faults from `faults` (the index's,
 * when the workspace was opened from it) or, without, from the attempts as `mine` does.
 */
function triagesOf(
  ws: CachedFrom,
  labels: readonly Label[],
  handOutcomes: ReadonlyMap<string, "pass" | "fail">,
  faults: MiningTriageInputs["knownFaults"],
): Triages {
  const common = { handOutcomes, knownFaults: faults };
  return {
    triage: miningTriage(ws.attempts, ws.config, common),
    finalTriage: miningTriage(ws.attempts, ws.config, {
      ...common,
      labels: new Map(labels.map((l) => [l.attemptId, l])),
    }),
  };
}

/**
 * The outside faults triage found in a run over loaded attempts without hand outcomes (its
 * triage before labels: faults only), as the workspace index holds them for those attempts
 * (`faultsOfAll`: a triage from the index equals one from a full load). What an index-backed
 * read takes, for a writer that was not opened from the index.
 */
function faultsIn(first: TriageResult): Map<string, Fault | null> {
  const out = new Map<string, Fault | null>();
  for (const t of first.tasks) for (const id of t.attemptIds) out.set(id, null);
  for (const e of first.exclusions)
    if (e.source === "triage")
      out.set(e.attemptId, {
        reason: e.reason as Fault["reason"],
        detail: e.detail,
        evidence: e.evidence,
      });
  return out;
}

/** Whether two triages print the same (compared part by part: no 30 MB string at once). */
function sameTriage(a: TriageResult, b: TriageResult): boolean {
  const same = <T>(x: readonly T[], y: readonly T[]) =>
    x.length === y.length && x.every((v, i) => JSON.stringify(v) === JSON.stringify(y[i]));
  return (
    same(a.tasks, b.tasks) &&
    same(a.exclusions, b.exclusions) &&
    same(a.inScope, b.inScope) &&
    JSON.stringify(Object.keys(a)) === JSON.stringify(Object.keys(b))
  );
}

/**
 * The cached result for `key`, or undefined (absent, another key, failing its checks, or
 * a label the store no longer holds). The caller checks the key again after this: the labels
 * are read from the store the key stamps.
 */
export async function readMiningCache(
  ws: CachedFrom,
  key: string,
  handOutcomes: ReadonlyMap<string, "pass" | "fail">,
): Promise<MineResult | undefined> {
  let read: ReturnType<typeof readStamped>;
  try {
    read = readStamped(miningCacheFile(ws.dir));
  } catch {
    return undefined;
  }
  // another key is not ours to serve; bytes fire wrote (matching their stamp) skip the schema
  if ((read.value as { key?: unknown } | null)?.key !== key) return undefined;
  let stored: z.infer<typeof Stored>;
  if (read.trusted && (read.value as { v?: unknown }).v === VERSION)
    stored = read.value as z.infer<typeof Stored>;
  else {
    const r = Stored.safeParse(read.value);
    if (!r.success) return undefined;
    stored = r.data;
  }
  const { hits, labelIds, triages, ...rest } = stored.result;
  const labels = await storedLabels(ws.dir, rest.labeler, labelIds);
  if (!labels) return undefined;
  return {
    ...(rest as unknown as Omit<MineResult, "hits" | "store" | "labels" | keyof Triages>),
    ...((triages as Triages | undefined) ?? triagesOf(ws, labels, handOutcomes, ws.index?.faults)),
    labels,
    hits: new Map(hits as [string, DetectorHit[]][]),
    // not cached (a copy of the label store): `fire mine`, the one writer of a store, never
    // reads this cache, and what reads it shows clusters
    store: { version: 1, labeler: stored.result.labeler, lastRun: [], entries: {} },
  };
}

/**
 * Stores a result under `key` (a run over `ws`'s attempts with `handOutcomes`); failing to
 * write only means the next read clusters again. Not written when a label is not the
 * store's own (a read could not give it back).
 */
export async function writeMiningCache(
  ws: CachedFrom,
  key: string,
  r: MineResult,
  handOutcomes: ReadonlyMap<string, "pass" | "fail">,
): Promise<void> {
  const file = miningCacheFile(ws.dir);
  try {
    if (r.labels.some((l) => r.store.entries[l.attemptId]?.label !== l)) return;
    // kept when an index-backed read would compute other triages (see `triagesOf`); hand
    // outcomes count in the task-level faults a triage finds, not in the index's
    const faults = ws.index?.faults ?? (handOutcomes.size ? undefined : faultsIn(r.triage));
    const again = faults && triagesOf(ws, r.labels, handOutcomes, faults);
    const keep =
      !again ||
      !sameTriage(again.triage, r.triage) ||
      !sameTriage(again.finalTriage, r.finalTriage);
    const { store: _store, labels, triage, finalTriage, hits, ...result } = r;
    await mkdir(dirname(file), { recursive: true });
    await writeStamped(
      file,
      JSON.stringify({
        v: VERSION,
        key,
        result: {
          ...result,
          labelIds: labels.map((l) => l.attemptId),
          ...(keep ? { triages: { triage, finalTriage } } : {}),
          hits: [...hits],
        },
      }),
    );
  } catch {
    /* no cache: the next read clusters again */
  }
}
