import { createHash } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import pLimit from "p-limit";
import type { InputError } from "../errors.js";
import { discoverUnits, type SourceUnit } from "../ingest/discover.js";
import type { IngestOptions } from "../ingest/types.js";
import { faultsOfAll } from "../mine/faults/index.js";
import type { Attempt } from "../model/attempt.js";
import { type FireConfig, loadConfig } from "./config.js";
import type { EntrySpan, UnitRef } from "./event-store.js";
import {
  type AttemptOrigin,
  type FaultRule,
  type IndexInfo,
  indexKey,
  unitsDigest,
  type WrittenEntries,
  writeIndex,
} from "./index-file.js";
import { LightUnits } from "./light-units.js";
import { parseOptionsKey } from "./options-key.js";
import {
  type CacheKey,
  decodeEntry,
  encodeRecord,
  listCacheEntries,
  ParseCacheSession,
  recordText,
  type UnitResult,
} from "./parse-cache.js";
import { ParsePool } from "./parse-pool.js";
import { isCacheable, parseUnit } from "./parse-unit.js";
import { workspacePaths } from "./paths.js";
import { resolveSources } from "./sources.js";

export { parseOptionsKey } from "./options-key.js";

export interface LoadProgress {
  done: number;
  total?: number;
  path: string;
}

export interface LoadOptions {
  /** Load these sources instead of the config's (paths or globs, workspace-relative). */
  sources?: string[];
  onProgress?: (p: LoadProgress) => void;
  signal?: AbortSignal;
  /**
   * Worker threads for parsing (0 parses in-thread). Default: none, unless `workersAfter`
   * is given, then up to 2 (see parseWorkers). They start only after `workersAfter` units
   * (default 32) were parsed in-thread, so small workspaces never pay their start-up.
   */
  workers?: number;
  workersAfter?: number;
  /**
   * Keep each unit's attempts light once its parse-cache entry is written (their events and
   * verifier output read back from it on first use) and return the workspace backed by the
   * index the load writes (`LightUnits`): a cold read then holds the units in flight, not every event of the
   * workspace. For readers (the read commands, the workbench); work that reads every event
   * (mining, replay) loads them whole.
   */
  light?: boolean;
}

export interface LoadStats {
  /** Source units discovered. */
  units: number;
  /** Units read by an importer in this call. */
  parsed: number;
  /** Units served from the parse cache. */
  cached: number;
  /** Attempts dropped because an earlier unit gave the very same attempt (same id, same content). */
  duplicates: number;
}

export interface Workspace {
  dir: string;
  config: FireConfig;
  /** Validated attempts, sorted by taskId then id. */
  attempts: Attempt[];
  errors: InputError[];
  /** Attempt count per source format. */
  byFormat: Record<string, number>;
  stats: LoadStats;
  /** Set when the workspace was opened from its index (events are read on first use). */
  index?: IndexInfo;
  /**
   * The files its discovery read and found no unit in (unknown formats, a run's own summary
   * files): unchanged, they need no discovery again (`knownUnits`).
   */
  passedOver?: readonly (readonly [path: string, stamp: string])[];
  /**
   * Set by a full load of the configured sources: the digest of the units it read, the one
   * its index carries (`unitsDigest`), so caches keyed by the attempts (`attemptsDigest`)
   * serve a full load and an index-backed open alike.
   */
  digest?: string;
}

/** Units read at once: enough to overlap I/O with parsing, few enough to bound memory. */
const UNIT_CONCURRENCY = 8;

/**
 * Opens a workspace: reads its config, discovers the units of its sources, reads each
 * unit from the parse cache when its stamp is unchanged (else through its importer),
 * validates every attempt with the zod model and collects every problem as an error.
 * Never throws for bad input; throws for a bad config or when aborted.
 */
export async function loadWorkspace(dir: string, opts: LoadOptions = {}): Promise<Workspace> {
  const root = resolve(dir);
  const { signal, onProgress } = opts;
  const config = await loadConfig(root);
  const resolved = await resolveSources(root, opts.sources ?? config.sources);
  const errors: InputError[] = [...resolved.errors];
  const options: IngestOptions = {
    passThreshold: config.passThreshold,
    outputCap: config.outputCap,
    ...(config.rewardKey ? { rewardKey: config.rewardKey } : {}),
    ...(config.taskDirs?.length ? { taskDirs: config.taskDirs.map((d) => resolve(root, d)) } : {}),
    ...(signal ? { signal } : {}),
  };
  const optionsKey = await parseOptionsKey(config);
  const cacheDir = workspacePaths(root).parseCache;
  const cache = new ParseCacheSession(cacheDir, await listCacheEntries(cacheDir));
  const stats: LoadStats = { units: 0, parsed: 0, cached: 0, duplicates: 0 };
  /** Where this load wrote each parsed unit's cache entry (for the workspace index). */
  const spans = new Map<string, EntrySpan>();
  /** Unset when the cache could not be tidied: the index then finds the entries itself. */
  let written: WrittenEntries | undefined;
  const results: UnitResult[] = [];
  const unitKeys: UnitRef[] = [];
  const limit = pLimit(UNIT_CONCURRENCY);
  // One unit parses in this thread at a time: the importers read synchronously, so units
  // parsed side by side (each yielding between lines) only keep more of them alive at once
  // (a cold read of 100,000 attempts in 500-attempt files: ~15 % more peak memory, no
  // faster; docs/performance.md)
  const inThread = pLimit(1);
  let done = 0;
  let total: number | undefined;
  let cacheDirReady: Promise<unknown> | undefined;

  // a light load: each unit's attempts kept light once cached, their fault facts read
  const light =
    opts.light === true && !opts.sources
      ? new LightUnits(cacheDir, optionsKey, {
          verifier: config.mining.verifierFaultMarkers,
          environment: config.mining.environmentFaultMarkers,
        })
      : undefined;

  const workers = parseWorkers(opts);
  const workersAfter = opts.workersAfter ?? 32;
  let pool: ParsePool | null | undefined;
  const ensureCacheDir = (): Promise<unknown> => {
    cacheDirReady ??= mkdir(cacheDir, { recursive: true }).catch(() => undefined);
    return cacheDirReady;
  };

  /** Appends a unit's record to the parse cache, noting where its entry lands. */
  const put = async (key: CacheKey, record: Uint8Array, sha256?: string): Promise<void> => {
    await ensureCacheDir();
    try {
      spans.set(key.path, cache.putRecord(key, record, sha256));
    } catch {
      /* the load goes on without this cache entry */
    }
  };

  /** Parses in a worker when the pool is up; any worker failure falls back to in-thread. */
  const parse = async (unit: SourceUnit, key: CacheKey, nth: number): Promise<UnitResult> => {
    if (pool === undefined && workers > 0 && nth >= workersAfter)
      pool = ParsePool.open(workers) ?? null;
    if (pool) {
      const { passThreshold, outputCap, rewardKey, taskDirs } = options;
      const reply = await pool
        .run({
          unit,
          key,
          passThreshold,
          outputCap,
          ...(rewardKey ? { rewardKey } : {}),
          ...(taskDirs ? { taskDirs } : {}),
        })
        .catch(() => undefined);
      const result = reply && decodeEntry(recordText(reply.record), key, false);
      if (result) {
        if (reply.sha256) await put(key, reply.record, reply.sha256);
        return result;
      }
    }
    return inThread(async () => {
      // a unit queued behind an abort is not read; an importer stopped by one returns what it
      // had read, which must not be cached as the unit
      signal?.throwIfAborted();
      const result = await parseUnit(unit, options);
      signal?.throwIfAborted();
      if (isCacheable(result)) await put(key, encodeRecord(key, result));
      return result;
    });
  };

  const readOne = async (unit: SourceUnit, i: number): Promise<void> => {
    signal?.throwIfAborted();
    const key = { path: unit.path, stamp: unit.stamp, options: optionsKey };
    unitKeys[i] = {
      path: unit.path,
      stamp: unit.stamp,
      ...(unit.outside ? { outside: unit.format } : {}),
    };
    let result = cache.get(key);
    // a unit from the cache is read back from its shard; one parsed now, from where it went
    let inCache = result !== undefined;
    if (result) stats.cached++;
    else {
      result = await parse(unit, key, stats.parsed++);
      inCache = spans.has(key.path);
    }
    const span = spans.get(key.path);
    results[i] =
      light && inCache
        ? light.lighten(result, i, {
            path: unit.path,
            stamp: unit.stamp,
            ...(span ? { span } : {}),
          })
        : result;
    done++;
    onProgress?.({ done, ...(total === undefined ? {} : { total }), path: unit.path });
  };

  // Units are read while discovery goes on, so walking folders overlaps parsing;
  // the total is known (and reported) once discovery has finished.
  const pending: Promise<void>[] = [];
  const seen = new Set<string>();
  const passedOver: [string, string][] = [];
  try {
    for await (const item of discoverUnits(resolved.paths, {
      ...(signal ? { signal } : {}),
      passedOver: (p, stamp) => passedOver.push([p, stamp]),
    })) {
      if (item.type === "error") {
        errors.push(item.error);
      } else if (!seen.has(item.unit.path)) {
        seen.add(item.unit.path);
        const i = stats.units++;
        const job = limit(() => readOne(item.unit, i));
        job.catch(() => undefined); // rejections surface in Promise.all below
        pending.push(job);
      }
    }
    total = stats.units;
    await Promise.all(pending);
  } finally {
    await Promise.allSettled(pending); // no worker is closed under a unit still in flight
    await pool?.close();
    try {
      written = { spans, rewritten: cache.finish() };
    } catch {
      /* a cache that cannot be tidied is still a cache */
    }
  }
  signal?.throwIfAborted();

  const attempts: Attempt[] = [];
  const byId = new Map<string, Attempt>();
  const byFormat: Record<string, number> = {};
  const origins = new Map<string, AttemptOrigin>();
  for (const [unit, r] of results.entries()) {
    errors.push(...r.errors);
    for (const found of r.attempts) {
      let a = found;
      const prev = byId.get(a.id);
      if (prev) {
        if (sameAttempt(prev, a)) {
          stats.duplicates++;
          continue;
        }
        a = { ...a, id: distinctId(a, byId) };
      }
      byId.set(a.id, a);
      origins.set(a.id, { unit, id: found.id });
      attempts.push(a);
      byFormat[a.source.format] = (byFormat[a.source.format] ?? 0) + 1;
    }
  }
  attempts.sort(compareAttempts);
  const ws: Workspace = {
    dir: root,
    config,
    attempts,
    errors,
    byFormat,
    stats,
    ...(passedOver.length > 0 ? { passedOver } : {}),
  };
  // The index serves the workbench's next open; only a load of the configured sources
  // describes the workspace.
  if (!opts.sources) {
    const key = indexKey(optionsKey, config);
    ws.digest = unitsDigest(key, unitKeys);
    const faultsOf: FaultRule = (all, m) => faultsOfAll(all, m, (a) => light?.factsOf(a));
    const index = await writeIndex(ws, key, optionsKey, unitKeys, origins, faultsOf, written);
    // the light attempts are what a read of that index gives (their events read from the
    // cache on first use), so the workspace is index-backed as an open from it is
    if (light && index) ws.index = light.indexed(ws, index, passedOver);
  }
  return ws;
}

/**
 * The parse worker threads a load with these options starts: none unless asked for
 * (`workers`, or `workersAfter`, which the CLI takes from FIRE_PARSE_WORKERS_AFTER), then up
 * to two. Measured on this 2-core machine with a core spare (docs/performance.md, session
 * 26): on 275 MB of real dev traces two workers made a cold load 12 % slower and took 80 MB
 * more; on the 210 MB generated corpus 4 % faster for 120 MB (45 %) more. A unit parsed in a
 * worker costs about half as much CPU again (start-up, encoding the result for the trip,
 * decoding it on the main thread, a heap per thread), and the main thread's share is the
 * bound.
 */
export function parseWorkers(opts: Pick<LoadOptions, "workers" | "workersAfter">): number {
  return (
    opts.workers ?? (opts.workersAfter === undefined ? 0 : Math.min(2, availableParallelism()))
  );
}

/** One attempt found twice (e.g. a trial copied into traces/ and imported from elsewhere). */
function sameAttempt(a: Attempt, b: Attempt): boolean {
  const { source: sa, ...ra } = a;
  const { source: sb, ...rb } = b;
  return sa.format === sb.format && JSON.stringify(ra) === JSON.stringify(rb);
}

/**
 * Two different attempts that claim one id (say, two transcripts of one session):
 * both are kept, the later one (in source order) under `<id>~<hash of its path>`.
 */
function distinctId(a: Attempt, taken: Map<string, Attempt>): string {
  const base = `${a.id}~${createHash("sha256").update(a.source.path).digest("hex").slice(0, 8)}`;
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  return id;
}

/** Stable order: by task, then id (code-unit comparison, independent of locale). */
export function compareAttempts(a: Attempt, b: Attempt): number {
  if (a.taskId !== b.taskId) return a.taskId < b.taskId ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return 0;
}
