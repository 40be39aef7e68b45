import { createHash } from "node:crypto";
import { readFileSync, rmSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { SourceFormat } from "../model/attempt.js";
import type { FireConfig } from "./config.js";
import { cachedConfig } from "./config-cache.js";
import type { UnitRef } from "./event-store.js";
import type { Workspace } from "./load.js";
import { parseOptionsKey } from "./options-key.js";
import { workspacePaths } from "./paths.js";
import { resolveSources } from "./sources.js";
import { readStamped, writeStamped } from "./stamped-cache.js";

/**
 * The workspace index's head: what tells whether the index still describes the sources —
 * its digest, its key and the paths of its units — without reading the index itself (tens
 * of MB at 100,000 attempts). A read command whose answer is cached under the index's digest
 * (triage, clusters, route) answers from `currentHead`, loading no importer, no index
 * decoder and no schema; anything else opens the workspace.
 */

/** Bump when the index layout changes: an older index is then rebuilt by a full load. */
export const INDEX_VERSION = 7;

export function indexFile(dir: string): string {
  return workspacePaths(dir).index;
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

export const digestFile = (dir: string) => `${indexFile(dir)}.digest`;

/** The digest of the index on disk, if any (a small side file: no parse of the index). */
export function storedDigest(dir: string): string | undefined {
  try {
    return readFileSync(digestFile(dir), "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}

const headFile = (dir: string) => `${indexFile(dir)}.head`;

interface HeadFile {
  v: number;
  digest: string;
  /** The index's own key (`{key, options}` as JSON). */
  key: string;
  units: string[];
  /** The units whose importer reads files outside them, with their format. */
  outside?: [string, SourceFormat][];
  /** Files the load's discovery read and found no unit in. */
  passedOver?: [string, string][];
}

/**
 * Writes the head of the index just written (stamped; before the digest file, so a reader
 * never pairs a new digest with an old head). Failing to write only costs the fast path.
 */
export async function writeHead(
  dir: string,
  head: {
    digest: string;
    key: string;
    units: readonly { path: string; outside?: SourceFormat }[];
    outside?: ReadonlyMap<string, SourceFormat>;
    passedOver?: Iterable<readonly [string, string]> | undefined;
  },
): Promise<void> {
  const outside = head.outside ?? outsideOf(head.units);
  const file: HeadFile = {
    v: INDEX_VERSION,
    digest: head.digest,
    key: head.key,
    units: head.units.map((u) => u.path),
    ...(outside.size > 0 ? { outside: [...outside] } : {}),
  };
  const passedOver = [...(head.passedOver ?? [])].map(([p, s]): [string, string] => [p, s]);
  if (passedOver.length > 0) file.passedOver = passedOver;
  try {
    await writeStamped(headFile(dir), JSON.stringify(file));
  } catch {
    rmSync(headFile(dir), { force: true });
  }
}

/**
 * The head of the index whose digest is `digest`: only bytes fire wrote (matching their
 * stamp) of this layout and digest; anything else is no head.
 */
export function readHead(dir: string, digest: string): HeadFile | undefined {
  try {
    const { value, trusted } = readStamped(headFile(dir));
    const head = value as HeadFile | null;
    return trusted && head?.v === INDEX_VERSION && head.digest === digest ? head : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The digest of the units a workspace's attempts came from (its index's, or a full load's
 * of the configured sources; a head's): what caches of results computed from the attempts
 * are keyed by. Undefined for a load of other sources.
 */
export function attemptsDigest(ws: Pick<Workspace, "index" | "digest">): string | undefined {
  return ws.index?.digest ?? ws.digest;
}

/**
 * The parts of the index one attempt's lookup reads (`fire show`, the cluster decisions that
 * need ids), written beside it (`index-lookup.json`, stamped) with the same key and digest:
 * the ids, the unit of each row, the rows whose id inside their unit differs, and the units.
 */
export interface IndexLookup {
  v: number;
  key: string;
  digest: string;
  units: UnitRef[];
  table: { ids: string[]; inner: [number, string][]; unit: number[] };
}

/** A workspace whose index matches its sources, known by its config and the index's digest. */
export interface WorkspaceHead {
  dir: string;
  config: FireConfig;
  digest: string;
}

/**
 * The workspace as its index's head describes it, when the sources still match it (the
 * same check as `openCurrentWorkspace`: the units' paths and stamps against the digest);
 * undefined when there is no index, no head, or anything changed. Throws what reading the
 * config throws.
 */
export async function currentHead(dir: string): Promise<WorkspaceHead | undefined> {
  const root = resolve(dir);
  const stored = storedDigest(root);
  const head = stored && readHead(root, stored);
  if (!stored || !head) return undefined;
  const config = await cachedConfig(root);
  const options = await parseOptionsKey(config);
  const key = indexKey(options, config);
  if (head.key !== JSON.stringify({ key, options })) return undefined;
  let writtenMs: number;
  try {
    writtenMs = statSync(indexFile(root)).mtimeMs;
  } catch {
    return undefined;
  }
  const units = await unitsNow(root, config.sources, {
    unitPaths: new Set(head.units),
    outside: new Map(head.outside ?? []),
    writtenMs,
    passedOver: new Map(head.passedOver ?? []),
  });
  return unitsDigest(key, units) === stored ? { dir: root, config, digest: stored } : undefined;
}

/**
 * The source units' paths and stamps now: from the index's unit list when nothing else is
 * below the sources (no format detected, no importer loaded), else by a discovery.
 */
export async function unitsNow(
  root: string,
  sources: string[],
  index: {
    unitPaths: ReadonlySet<string>;
    outside: ReadonlyMap<string, SourceFormat>;
    writtenMs: number;
    passedOver?: ReadonlyMap<string, string>;
  },
  signal?: AbortSignal,
): Promise<{ path: string; stamp: string }[]> {
  const { knownUnits } = await import("../ingest/discover.js");
  const resolved = await resolveSources(root, sources);
  const known = await knownUnits(
    resolved.paths,
    index.unitPaths,
    index.writtenMs,
    index.outside,
    index.passedOver,
  );
  signal?.throwIfAborted();
  return known ?? currentUnits(root, sources, signal);
}

/** The source units' paths and stamps as discovery finds them now (no parsing). */
async function currentUnits(
  root: string,
  sources: string[],
  signal?: AbortSignal,
): Promise<{ path: string; stamp: string }[]> {
  const { discoverUnits } = await import("../ingest/discover.js");
  const resolved = await resolveSources(root, sources);
  const units: { path: string; stamp: string }[] = [];
  const seen = new Set<string>();
  for await (const item of discoverUnits(resolved.paths, signal ? { signal } : {})) {
    if (item.type === "unit" && !seen.has(item.unit.path)) {
      seen.add(item.unit.path);
      units.push({ path: item.unit.path, stamp: item.unit.stamp });
    }
  }
  signal?.throwIfAborted();
  return units;
}

/** The units whose importer reads files outside them, by path, with their format. */
export function outsideOf(
  units: readonly { path: string; outside?: SourceFormat }[],
): Map<string, SourceFormat> {
  const out = new Map<string, SourceFormat>();
  for (const u of units) if (u.outside) out.set(u.path, u.outside);
  return out;
}
