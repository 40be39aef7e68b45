import { createHash } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { resolve } from "node:path";
import pLimit from "p-limit";
import { describeZodIssues, InputError } from "../errors.js";
import { discoverUnits, type SourceUnit } from "../ingest/discover.js";
import { readUnit } from "../ingest/registry.js";
import type { IngestOptions } from "../ingest/types.js";
import { Attempt } from "../model/attempt.js";
import { type FireConfig, loadConfig } from "./config.js";
import {
  listCacheEntries,
  readCacheEntry,
  type UnitResult,
  writeCacheEntry,
} from "./parse-cache.js";
import { workspacePaths } from "./paths.js";
import { resolveSources } from "./sources.js";

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
}

/** Units read at once: enough to overlap I/O with parsing, few enough to bound memory. */
const UNIT_CONCURRENCY = 4;

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
    ...(signal ? { signal } : {}),
  };
  const optionsKey = JSON.stringify({ p: config.passThreshold, c: config.outputCap });
  const cacheDir = workspacePaths(root).parseCache;
  const present = await listCacheEntries(cacheDir);
  const stats: LoadStats = { units: 0, parsed: 0, cached: 0, duplicates: 0 };
  const results: UnitResult[] = [];
  const limit = pLimit(UNIT_CONCURRENCY);
  let done = 0;
  let total: number | undefined;
  let cacheDirReady: Promise<unknown> | undefined;

  const readOne = async (unit: SourceUnit, i: number): Promise<void> => {
    signal?.throwIfAborted();
    const key = { path: unit.path, stamp: unit.stamp, options: optionsKey };
    let result = await readCacheEntry(cacheDir, key, present);
    if (result) {
      stats.cached++;
    } else {
      result = await parseUnit(unit, options);
      stats.parsed++;
      // A unit that gave nothing but errors may be a transient failure
      // (permissions): it is read again next time instead of cached.
      if (result.attempts.length > 0 || result.errors.length === 0) {
        cacheDirReady ??= mkdir(cacheDir, { recursive: true }).catch(() => undefined);
        await cacheDirReady;
        await writeCacheEntry(cacheDir, key, result).catch(() => undefined);
      }
    }
    results[i] = result;
    done++;
    onProgress?.({ done, ...(total === undefined ? {} : { total }), path: unit.path });
  };

  // Units are read while discovery goes on, so walking folders overlaps parsing;
  // the total is known (and reported) once discovery has finished.
  const pending: Promise<void>[] = [];
  const seen = new Set<string>();
  if (resolved.paths.length > 0) {
    for await (const item of discoverUnits(resolved.paths, signal ? { signal } : {})) {
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
  }
  total = stats.units;
  await Promise.all(pending);
  signal?.throwIfAborted();

  const attempts: Attempt[] = [];
  const byId = new Map<string, Attempt>();
  const byFormat: Record<string, number> = {};
  for (const r of results) {
    errors.push(...r.errors);
    for (const found of r.attempts) {
      let a = found;
      const prev = byId.get(a.id);
      if (prev) {
        if (JSON.stringify(prev) === JSON.stringify(a)) {
          stats.duplicates++;
          continue;
        }
        a = { ...a, id: distinctId(a, byId) };
      }
      byId.set(a.id, a);
      attempts.push(a);
      byFormat[a.source.format] = (byFormat[a.source.format] ?? 0) + 1;
    }
  }
  attempts.sort(compareAttempts);
  return { dir: root, config, attempts, errors, byFormat, stats };
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

/** Reads one unit through its importer; invalid attempts become errors naming the field. */
async function parseUnit(unit: SourceUnit, options: IngestOptions): Promise<UnitResult> {
  const attempts: Attempt[] = [];
  const errors: InputError[] = [];
  try {
    for await (const item of readUnit(unit, options)) {
      if (item.type === "error") {
        errors.push(item.error);
        continue;
      }
      const r = Attempt.safeParse(item.attempt);
      if (r.success) attempts.push(r.data);
      else {
        const where = item.attempt.source?.path ?? unit.path;
        errors.push(
          new InputError(where, undefined, `invalid attempt: ${describeZodIssues(r.error.issues)}`),
        );
      }
    }
  } catch (err) {
    if (options.signal?.aborted) throw err;
    const message = err instanceof Error ? err.message : String(err);
    errors.push(new InputError(unit.path, undefined, `cannot read: ${message}`));
  }
  return { attempts, errors };
}
