import { rmSync, statSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { basename } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { z } from "zod";
import { InputError } from "../errors.js";
import type { Fault, FaultMarkers } from "../mine/faults/types.js";
import type { Attempt, SourceFormat } from "../model/attempt.js";
import { shardFile } from "./cache-shards.js";
import type { FireConfig } from "./config.js";
import { type EntrySpan, EventStore, entrySpans, type UnitRef } from "./event-store.js";
import {
  digestFile,
  INDEX_VERSION,
  type IndexLookup,
  indexFile,
  outsideOf,
  readHead,
  storedDigest,
  unitsDigest,
  writeHead,
} from "./head.js";
import { writeIdFilter } from "./id-filter.js";
import { decodeAttempts } from "./index-attempts.js";
import { type AttemptTable, checkTable, encodeTable, type TableRow } from "./index-table.js";
import type { LoadStats, Workspace } from "./load.js";
import { workspacePaths } from "./paths.js";
import { readStamped, writeStamped } from "./stamped-cache.js";

/**
 * The workspace index: per attempt what the first frame and triage need (no events, no
 * verifier output), as columns (core/workspace/index-table.ts); task texts once each.
 */
interface IndexFile {
  v: number;
  key: string;
  digest: string;
  units: UnitRef[];
  tasks: [string, string][];
  table: AttemptTable;
  errors: { file: string; line: number | null; message: string }[];
  byFormat: Record<string, number>;
  stats: LoadStats;
  /** Files the load's discovery read and found no unit in (`Workspace.passedOver`). */
  passedOver?: [string, string][];
}

/** Facts of an index-backed workspace (`Workspace.index`). */
export interface IndexInfo {
  /** Digest of the key and every unit's path and stamp (compare with `unitsDigest`). */
  digest: string;
  file: string;
  /** Faults precomputed for triage, by attempt id (null: no fault). */
  faults: ReadonlyMap<string, Fault | null>;
  /** The attempts by id. */
  byId: ReadonlyMap<string, Attempt>;
  /** Event count by attempt id (lists show it without reading the events). */
  eventCounts: ReadonlyMap<string, number>;
  /** The paths of the units it was built from. */
  unitPaths: ReadonlySet<string>;
  /** Those of them whose importer reads files outside them, with their format. */
  outside: ReadonlyMap<string, SourceFormat>;
  /** When it was written (ms): what is older has not changed since the load it describes. */
  writtenMs: number;
  /** Files the load's discovery read and found no unit in. */
  /** … with the stamp discovery read each with (`passedOverStamp`). */
  passedOver: ReadonlyMap<string, string>;
}

export { INDEX_VERSION, indexFile, indexKey, storedDigest, unitsDigest } from "./head.js";

/** Where each attempt of a full load came from: unit number and id inside the unit. */
export interface AttemptOrigin {
  unit: number;
  id: string;
}

/**
 * The fault rules the index precomputes for triage (`mine/faults` `faultsOfAll`): each failed
 * attempt's outside fault, by attempt id, the faults only a whole task shows included.
 */
export type FaultRule = (
  attempts: readonly Attempt[],
  markers: FaultMarkers,
) => ReadonlyMap<string, Fault>;

/** The parse-cache entries a load wrote: where each unit's went, and the shards it rewrote. */
export interface WrittenEntries {
  spans: ReadonlyMap<string, EntrySpan>;
  rewritten: ReadonlySet<string>;
}

/**
 * The entry span of each unit: where the load wrote it, else (a unit read from the cache,
 * or one whose shard was compacted since) found by reading the shards that hold such units.
 */
function unitSpans(
  cacheDir: string,
  units: readonly { path: string }[],
  written: WrittenEntries | undefined,
): ReadonlyMap<string, EntrySpan> {
  if (!written) return entrySpans(cacheDir);
  const spans = new Map<string, EntrySpan>();
  const scan = new Set<string>();
  for (const u of units) {
    const span = written.spans.get(u.path);
    if (span && !written.rewritten.has(span.shard)) spans.set(u.path, span);
    else scan.add(basename(shardFile(cacheDir, u.path)));
  }
  if (scan.size === 0) return spans;
  for (const [path, span] of entrySpans(cacheDir, scan))
    if (!spans.has(path)) spans.set(path, span);
  return spans;
}

/** What an index just written says beyond the attempts: its digest and every attempt's fault. */
export interface WrittenIndex {
  digest: string;
  /** The units as the index records them: where each one's parse-cache entry is. */
  units: readonly UnitRef[];
  /** By attempt id, every attempt (null: no fault), as a read of the index gives them. */
  faults: ReadonlyMap<string, Fault | null>;
}

/**
 * Writes the workspace index after a full load (atomically; the digest side file last,
 * so a reader never pairs a new digest with an old index). Skipped when the stored
 * digest already matches. Failure to write only means the next open reads fully.
 * `faultsOf` comes from the caller (a full load, which has the fault rules loaded): a read
 * from the index loads none of them. Returns what it wrote (undefined: nothing written).
 */
export async function writeIndex(
  ws: Workspace,
  key: string,
  options: string,
  units: readonly UnitRef[],
  origins: ReadonlyMap<string, AttemptOrigin>,
  faultsOf: FaultRule,
  written?: WrittenEntries,
): Promise<WrittenIndex | undefined> {
  const digest = unitsDigest(key, units);
  const indexKeyText = JSON.stringify({ key, options });
  if (storedDigest(ws.dir) === digest) {
    // an index of an older fire has no head: written once, so read commands can use it
    if (!readHead(ws.dir, digest))
      await writeHead(ws.dir, { digest, key: indexKeyText, units, passedOver: ws.passedOver });
    return undefined;
  }
  const cacheDir = workspacePaths(ws.dir).parseCache;
  const spans = unitSpans(cacheDir, units, written);
  const refs: UnitRef[] = units.map((u) => {
    const span = spans.get(u.path);
    return {
      path: u.path,
      stamp: u.stamp,
      ...(span ? { span } : {}),
      ...(u.outside ? { outside: u.outside } : {}),
    };
  });
  const markers = {
    verifier: ws.config.mining.verifierFaultMarkers,
    environment: ws.config.mining.environmentFaultMarkers,
  };
  const faults = faultsOf(ws.attempts, markers);
  const taskNo = new Map<string, number>();
  const tasks: [string, string][] = [];
  const rows: TableRow[] = [];
  for (const a of ws.attempts) {
    const origin = origins.get(a.id);
    const unitPath = origin && units[origin.unit]?.path;
    if (!origin || unitPath === undefined) return undefined; // unknown origin: no index, not a wrong one
    const tk = `${a.taskId}\u0000${a.taskText}`;
    let task = taskNo.get(tk);
    if (task === undefined) {
      task = tasks.length;
      taskNo.set(tk, task);
      tasks.push([a.taskId, a.taskText]);
    }
    const fault = a.outcome === "pass" ? undefined : faults.get(a.id);
    rows.push({ attempt: a, task, unit: origin.unit, unitPath, innerId: origin.id, fault });
  }
  const table = encodeTable(rows);
  const file: IndexFile = {
    v: INDEX_VERSION,
    key: indexKeyText,
    digest,
    units: refs,
    tasks,
    table,
    errors: ws.errors.map((e) => e.toJSON()),
    byFormat: ws.byFormat,
    stats: ws.stats,
    ...(ws.passedOver?.length ? { passedOver: ws.passedOver.map(([p, s]) => [p, s]) } : {}),
  };
  try {
    await mkdir(workspacePaths(ws.dir).cache, { recursive: true });
    await writeStamped(indexFile(ws.dir), JSON.stringify(file));
    // what `fire show` reads (indexed-attempt.ts): a few MB at 100,000 attempts, not the 23 MB
    // index hashed and scanned for three of its columns
    const lookup: IndexLookup = {
      v: INDEX_VERSION,
      key: indexKeyText,
      digest,
      units: refs,
      table: { ids: table.ids, inner: table.inner, unit: table.unit },
    };
    await writeStamped(workspacePaths(ws.dir).indexLookup, JSON.stringify(lookup));
    // what tells a cluster reference from an attempt id without reading the ids
    await writeIdFilter(ws.dir, table.ids, digest);
    await writeHead(ws.dir, { digest, key: indexKeyText, units, passedOver: ws.passedOver });
    await writeFileAtomic(digestFile(ws.dir), `${digest}\n`);
  } catch {
    return undefined; // no index: the next open reads the sources
  }
  const all = new Map<string, Fault | null>();
  for (const r of rows) all.set(r.attempt.id, r.fault ?? null);
  return { digest, units: refs, faults: all };
}

/**
 * Opens a workspace from its index: attempts without their events, which are read
 * from the parse cache when first used (`attempt.events`, `attempt.verifierOutput`).
 * Undefined when there is no index, it was built with another key, or it fails its checks
 * (the layout, and every stored value against the model's schema unless the bytes are the
 * ones fire wrote: they match their stamp, core/workspace/stamped-cache.ts).
 */
export function readIndex(
  dir: string,
  config: FireConfig,
  key: string,
  options: string,
): Workspace | undefined {
  let file: IndexFile;
  let writtenMs: number;
  let trusted: boolean;
  try {
    writtenMs = statSync(indexFile(dir)).mtimeMs;
    const read = readStamped(indexFile(dir));
    file = read.value as IndexFile;
    trusted = read.trusted;
  } catch {
    return rejected(dir);
  }
  if (
    file?.v !== INDEX_VERSION ||
    file.key !== JSON.stringify({ key, options }) ||
    typeof file.digest !== "string" ||
    !Array.isArray(file.units) ||
    !file.units.every((u) => typeof u?.path === "string" && typeof u.stamp === "string") ||
    !Array.isArray(file.tasks) ||
    !file.tasks.every(
      (t) => Array.isArray(t) && typeof t[0] === "string" && typeof t[1] === "string",
    ) ||
    !(trusted || IndexExtras.safeParse(file).success)
  )
    return rejected(dir);
  // the bytes fire wrote (matching their stamp): the layout is checked, not each value
  const table = checkTable(file.table, file.tasks.length, file.units.length, trusted);
  if (!table) return rejected(dir);
  // span hashes vouch for parse-cache bytes only when the index itself is fire's own
  const units = trusted
    ? file.units
    : file.units.map((u) => (u.span ? { ...u, span: { ...u.span, sha256: undefined } } : u));
  const store = new EventStore(workspacePaths(dir).parseCache, options, units);
  let decoded: ReturnType<typeof decodeAttempts>;
  try {
    decoded = decodeAttempts(table, file.tasks, file.units, store);
  } catch {
    return rejected(dir); // a layout the checks let through and decoding does not: rebuilt
  }
  const { attempts, byId, faults, eventCounts } = decoded;
  return {
    dir,
    config,
    attempts,
    errors: file.errors.map((e) => new InputError(e.file, e.line ?? undefined, e.message)),
    byFormat: file.byFormat,
    stats: file.stats,
    ...(file.passedOver?.length ? { passedOver: file.passedOver } : {}),
    index: {
      digest: file.digest,
      file: indexFile(dir),
      byId,
      faults,
      eventCounts,
      unitPaths: new Set(file.units.map((u) => u.path)),
      outside: outsideOf(file.units),
      writtenMs,
      passedOver: new Map(file.passedOver ?? []),
    },
  };
}

/** The index's error list, counts by format and load statistics, as a full load writes them. */
const IndexExtras = z.object({
  errors: z.array(
    z.object({ file: z.string(), line: z.number().int().nullable(), message: z.string() }),
  ),
  byFormat: z.record(z.string(), z.number().int().nonnegative()),
  passedOver: z.array(z.tuple([z.string(), z.string()])).optional(),
  stats: z.object({
    units: z.number().int().nonnegative(),
    parsed: z.number().int().nonnegative(),
    cached: z.number().int().nonnegative(),
    duplicates: z.number().int().nonnegative(),
  }),
});

/**
 * An index that cannot be used (missing, unreadable, another layout or key, or failing its
 * checks): its digest goes, so the full load that follows writes a new one.
 */
function rejected(dir: string): undefined {
  rmSync(digestFile(dir), { force: true });
  return undefined;
}

/** An attempt's event count without reading its events when the index knows it. */
export function eventCountOf(ws: Workspace, a: Attempt): number {
  return ws.index?.eventCounts.get(a.id) ?? a.events.length;
}
