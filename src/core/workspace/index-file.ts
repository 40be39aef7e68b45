import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { InputError } from "../errors.js";
import { type Fault, faultOf } from "../mine/faults/index.js";
import { type Attempt, Attempt as AttemptSchema } from "../model/attempt.js";
import type { FireConfig } from "./config.js";
import { EventStore, entrySpans, type UnitRef } from "./event-store.js";
import type { LoadStats, Workspace } from "./load.js";
import { workspacePaths } from "./paths.js";

/** Bump when the index layout changes: an older index is then rebuilt by a full load. */
export const INDEX_VERSION = 2;

/**
 * Stands for the attempt's own unit path in a row (`source.path`) and for the attempt's
 * source path in its fault's evidence: 100,000 copies of a long path are most of an index
 * otherwise, and parsing them most of a warm open.
 */
const SAME_PATH = 0;

/** Parts of an attempt read from the parse cache on first use, not kept in the index. */
const LAZY = [
  "events",
  "verifierOutput",
  "verifierSource",
  "verifierScores",
  "links",
  "exception",
] as const;
type LazyPart = (typeof LAZY)[number];

/**
 * One attempt in the index: the attempt without its events, verifier details and task
 * text (tasks are stored once each), plus what the first frame needs from the events.
 */
interface IndexRow extends Omit<Attempt, LazyPart | "taskText"> {
  /** Task number (into `tasks`). */
  t: number;
  /** Source unit number (into `units`). */
  u: number;
  /** The attempt's id inside its unit, when the load renamed it (a clash). */
  s?: string;
  /** Event count. */
  n: number;
  /** Bit i set: the attempt has LAZY[i] (besides events). */
  p?: number;
  /** Its outside fault (triage's faultOf with the config's markers), when not a pass. */
  f?: Fault;
}

interface IndexFile {
  v: number;
  key: string;
  digest: string;
  units: UnitRef[];
  tasks: [string, string][];
  attempts: IndexRow[];
  errors: { file: string; line: number | null; message: string }[];
  byFormat: Record<string, number>;
  stats: LoadStats;
}

/** Facts of an index-backed workspace (`Workspace.index`). */
export interface IndexInfo {
  /** Digest of the key and every unit's path and stamp (compare with `unitsDigest`). */
  digest: string;
  file: string;
  /** Faults precomputed for triage, by attempt id (null: no fault). */
  faults: ReadonlyMap<string, Fault | null>;
  /** Event count by attempt id (lists show it without reading the events). */
  eventCounts: ReadonlyMap<string, number>;
}

export function indexFile(dir: string): string {
  return join(workspacePaths(dir).cache, "index.json");
}

/** What the index depends on besides the units: the parse options and the fault markers. */
export function indexKey(optionsKey: string, config: FireConfig): string {
  return JSON.stringify({
    o: optionsKey,
    vf: config.mining.verifierFaultMarkers,
    ef: config.mining.environmentFaultMarkers,
  });
}

/** Digest of the index key and the units (sorted), to tell a stale index cheaply. */
export function unitsDigest(
  key: string,
  units: readonly { path: string; stamp: string }[],
): string {
  const h = createHash("sha256").update(`${INDEX_VERSION}\n${key}\n`);
  for (const u of [...units].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)))
    h.update(`${u.path}\u0000${u.stamp}\n`);
  return h.digest("hex");
}

const digestFile = (dir: string) => `${indexFile(dir)}.digest`;

/** The digest of the index on disk, if any (a small side file: no parse of the index). */
export function storedDigest(dir: string): string | undefined {
  try {
    return readFileSync(digestFile(dir), "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Where each attempt of a full load came from: unit number and id inside the unit. */
export interface AttemptOrigin {
  unit: number;
  id: string;
}

/**
 * Writes the workspace index after a full load (atomically; the digest side file last,
 * so a reader never pairs a new digest with an old index). Skipped when the stored
 * digest already matches. Failure to write only means the next open reads fully.
 */
export async function writeIndex(
  ws: Workspace,
  key: string,
  options: string,
  units: readonly { path: string; stamp: string }[],
  origins: ReadonlyMap<string, AttemptOrigin>,
): Promise<void> {
  const digest = unitsDigest(key, units);
  if (storedDigest(ws.dir) === digest) return;
  const cacheDir = workspacePaths(ws.dir).parseCache;
  const spans = entrySpans(cacheDir);
  const refs: UnitRef[] = units.map((u) => {
    const span = spans.get(u.path);
    return { path: u.path, stamp: u.stamp, ...(span ? { span } : {}) };
  });
  const markers = {
    verifier: ws.config.mining.verifierFaultMarkers,
    environment: ws.config.mining.environmentFaultMarkers,
  };
  const taskNo = new Map<string, number>();
  const tasks: [string, string][] = [];
  const rows: IndexRow[] = [];
  for (const a of ws.attempts) {
    const origin = origins.get(a.id);
    if (!origin) return; // an attempt of unknown origin: no index rather than a wrong one
    const tk = `${a.taskId}\u0000${a.taskText}`;
    let t = taskNo.get(tk);
    if (t === undefined) {
      t = tasks.length;
      taskNo.set(tk, t);
      tasks.push([a.taskId, a.taskText]);
    }
    const {
      events,
      verifierOutput: _vo,
      verifierSource: _vs,
      verifierScores: _sc,
      links: _l,
      exception: _e,
      taskText: _t,
      ...head
    } = a;
    const row: IndexRow = { ...head, t, u: origin.unit, n: events.length };
    if (a.source.path === units[origin.unit]?.path)
      row.source = { format: a.source.format, path: SAME_PATH as unknown as string };
    if (origin.id !== a.id) row.s = origin.id;
    let parts = 0;
    LAZY.forEach((name, i) => {
      if (i > 0 && a[name] !== undefined) parts |= 1 << i;
    });
    if (parts) row.p = parts;
    if (a.outcome !== "pass") {
      const f = faultOf(a, markers);
      if (f) row.f = samePaths(f, a.source.path);
    }
    rows.push(row);
  }
  const file: IndexFile = {
    v: INDEX_VERSION,
    key: JSON.stringify({ key, options }),
    digest,
    units: refs,
    tasks,
    attempts: rows,
    errors: ws.errors.map((e) => e.toJSON()),
    byFormat: ws.byFormat,
    stats: ws.stats,
  };
  try {
    await mkdir(workspacePaths(ws.dir).cache, { recursive: true });
    await writeFileAtomic(indexFile(ws.dir), JSON.stringify(file));
    await writeFileAtomic(digestFile(ws.dir), `${digest}\n`);
  } catch {
    /* no index: the next open reads the sources */
  }
}

/**
 * Opens a workspace from its index: attempts without their events, which are read
 * from the parse cache when first used (`attempt.events`, `attempt.verifierOutput`).
 * Undefined when there is no index, or it was built with another key.
 */
export function readIndex(
  dir: string,
  config: FireConfig,
  key: string,
  options: string,
): Workspace | undefined {
  let file: IndexFile;
  try {
    file = JSON.parse(readFileSync(indexFile(dir), "utf8")) as IndexFile;
  } catch {
    return undefined;
  }
  if (
    file?.v !== INDEX_VERSION ||
    file.key !== JSON.stringify({ key, options }) ||
    !Array.isArray(file.attempts) ||
    !Array.isArray(file.units) ||
    !Array.isArray(file.tasks)
  )
    return undefined;
  const store = new EventStore(workspacePaths(dir).parseCache, options, file.units);
  const faults = new Map<string, Fault | null>();
  const eventCounts = new Map<string, number>();
  const attempts: Attempt[] = [];
  for (const row of file.attempts) {
    const task = file.tasks[row.t];
    if (!task || typeof row.id !== "string") return undefined;
    const unitPath = file.units[row.u]?.path;
    if (unitPath === undefined) return undefined;
    const a = attemptOf(row, task[1], store, unitPath);
    faults.set(a.id, row.f ? withPaths(row.f, a.source.path) : null);
    eventCounts.set(a.id, row.n);
    attempts.push(a);
  }
  return {
    dir,
    config,
    attempts,
    errors: file.errors.map((e) => new InputError(e.file, e.line ?? undefined, e.message)),
    byFormat: file.byFormat,
    stats: file.stats,
    index: { digest: file.digest, file: indexFile(dir), faults, eventCounts },
  };
}

/** The model's fields in its order: attempts from the index keep the order of parsed ones. */
const FIELDS = Object.keys(AttemptSchema.shape) as (keyof Attempt)[];

/**
 * An attempt from its index row, fields in the model's order (so its JSON, and every
 * hash of it, e.g. the label cache's, is that of the parsed attempt); `events` and the
 * other LAZY parts it has are read on first use.
 */
function attemptOf(row: IndexRow, taskText: string, store: EventStore, unitPath: string): Attempt {
  const a: Record<string, unknown> = {};
  const id = row.s ?? row.id;
  const full = () => store.attempt(row.u, id);
  const head = row as unknown as Record<string, unknown>;
  for (const name of FIELDS) {
    const lazyAt = (LAZY as readonly string[]).indexOf(name);
    if (name === "taskText") a.taskText = taskText;
    else if (name === "source" && (row.source.path as unknown) === SAME_PATH)
      a.source = { format: row.source.format, path: unitPath };
    else if (lazyAt === 0 || (lazyAt > 0 && (row.p ?? 0) & (1 << lazyAt)))
      lazyPart(a, name as LazyPart, full);
    else if (lazyAt < 0 && head[name] !== undefined) a[name] = head[name];
  }
  return a as unknown as Attempt;
}

/** A fault as the index stores it: evidence in the attempt's own file names no path. */
function samePaths(f: Fault, path: string): Fault {
  if (!f.evidence.some((e) => e.file === path)) return f;
  return {
    ...f,
    evidence: f.evidence.map((e) =>
      e.file === path ? { ...e, file: SAME_PATH as unknown as string } : e,
    ),
  };
}

/** The stored fault with its evidence paths back (the inverse of `samePaths`). */
function withPaths(f: Fault, path: string): Fault {
  if (!f.evidence.some((e) => (e.file as unknown) === SAME_PATH)) return f;
  return {
    ...f,
    evidence: f.evidence.map((e) => ((e.file as unknown) === SAME_PATH ? { ...e, file: path } : e)),
  };
}

/** Defines one LAZY part as read from the full attempt on first use. */
function lazyPart(a: Record<string, unknown>, name: LazyPart, full: () => Attempt): void {
  Object.defineProperty(a, name, {
    enumerable: true,
    configurable: true,
    get: () => full()[name],
    // an assignment replaces the lazy part with a plain value
    set: (value: unknown) =>
      Object.defineProperty(a, name, {
        value,
        writable: true,
        enumerable: true,
        configurable: true,
      }),
  });
}

/** An attempt's event count without reading its events when the index knows it. */
export function eventCountOf(ws: Workspace, a: Attempt): number {
  return ws.index?.eventCounts.get(a.id) ?? a.events.length;
}
