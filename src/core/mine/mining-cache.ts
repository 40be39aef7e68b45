import { createHash } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { coreCodeStamp } from "../workspace/code-stamp.js";
import { workspacePaths } from "../workspace/paths.js";
import { readStamped, writeStamped } from "../workspace/stamped-cache.js";
import type { DetectorHit } from "./detectors/types.js";
import type { MineResult } from "./mine.js";

export { coreCodeStamp } from "../workspace/code-stamp.js";
export { fileStamp } from "../workspace/stamped-cache.js";

/**
 * The last clustering of the cached labels, before the user's decisions, kept beside the
 * workspace index (`.fire/cache/mining.json`, safe to delete). Mining is a black box here:
 * the entry is keyed by everything it reads — the index's digest (the attempts), the label
 * store's stamp, the hand outcomes, the config and the code of core/ — and served only
 * while that key is unchanged. The user's decisions are not in the key: they are applied
 * to this on every read (core/mine/run-mining.ts), so a decision costs no re-clustering.
 */
const VERSION = 2;

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
      triage: z.looseObject({}),
      finalTriage: z.looseObject({}),
      labels: z.array(z.looseObject({ attemptId: z.string() })),
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

/** The cached result for `key`, or undefined (absent, another key, or failing its checks). */
export function readMiningCache(dir: string, key: string): MineResult | undefined {
  let read: ReturnType<typeof readStamped>;
  try {
    read = readStamped(miningCacheFile(dir));
  } catch {
    return undefined;
  }
  // another key is not ours to serve; bytes fire wrote (matching their stamp) skip the schema
  if ((read.value as { key?: unknown } | null)?.key !== key) return undefined;
  let stored: z.infer<typeof Stored>;
  if (read.trusted) stored = read.value as z.infer<typeof Stored>;
  else {
    const r = Stored.safeParse(read.value);
    if (!r.success) return undefined;
    stored = r.data;
  }
  const { hits, ...rest } = stored.result;
  return {
    ...(rest as unknown as Omit<MineResult, "hits" | "store">),
    hits: new Map(hits as [string, DetectorHit[]][]),
    // not cached (a copy of the label store): `fire mine`, the one writer of a store, never
    // reads this cache, and what reads it shows clusters
    store: { version: 1, labeler: stored.result.labeler, lastRun: [], entries: {} },
  };
}

/** Stores a result under `key`; failing to write only means the next read clusters again. */
export async function writeMiningCache(dir: string, key: string, r: MineResult): Promise<void> {
  const file = miningCacheFile(dir);
  try {
    await mkdir(dirname(file), { recursive: true });
    const { store: _store, ...result } = r;
    await writeStamped(
      file,
      JSON.stringify({ v: VERSION, key, result: { ...result, hits: [...r.hits] } }),
    );
  } catch {
    /* no cache: the next read clusters again */
  }
}
