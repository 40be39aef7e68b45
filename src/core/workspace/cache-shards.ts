import { createHash } from "node:crypto";
import { appendFileSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { threadId } from "node:worker_threads";

/**
 * Bump when the entry layout or the normalized model changes: old entries then miss. (Here,
 * beside the shards, so reading one entry — `fire show` — loads no schema.)
 */
export const PARSE_CACHE_VERSION = 10;

/**
 * Parse-cache entries live in a fixed set of append-only shard files, not one file per
 * unit: creating a file costs far more than writing its bytes (≈0.5 ms of kernel time
 * each on the benchmark machine, so a 1,600-unit workspace spent a second creating
 * entries). A unit's entry is appended to the shard its path hashes to; the last entry
 * of a path that matches the key wins, and superseded entries are dropped when the
 * shard is compacted.
 */
export const SHARD_COUNT = 64;

/** Every entry starts with its header line, and only header lines start so. */
const HEADER_PREFIX = '{"v":';

/** The shard file holding the entries of a unit path. */
export function shardFile(cacheDir: string, unitPath: string): string {
  const n = createHash("sha256").update(unitPath).digest()[0]! % SHARD_COUNT;
  return join(cacheDir, `shard-${n.toString(16).padStart(2, "0")}.jsonl`);
}

/** Entry texts of one shard file by unit path, in the order they were appended. */
export interface ShardIndex {
  entries: Map<string, string[]>;
  /** Bytes of entries that a later entry of the same path supersedes. */
  deadBytes: number;
  bytes: number;
}

/** The unit path named in an entry header, without parsing the whole line. */
export function headerPath(line: string): string | undefined {
  try {
    const h = JSON.parse(line) as { path?: unknown };
    return typeof h.path === "string" ? h.path : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Splits shard text into entries (header line + the lines up to the next header).
 * Blank lines separate appends; a cut or garbled entry stays as text and is rejected
 * when it is decoded, so one bad entry never hides the others.
 */
export function indexShard(text: string): ShardIndex {
  const entries = new Map<string, string[]>();
  let deadBytes = 0;
  let start = -1;
  let path: string | undefined;
  const close = (end: number): void => {
    if (start < 0 || path === undefined) return;
    let stop = end;
    while (stop > start && text.charCodeAt(stop - 1) === 10) stop--;
    const entry = text.slice(start, stop);
    const list = entries.get(path);
    if (list) {
      deadBytes += list[list.length - 1]!.length;
      list.push(entry);
    } else entries.set(path, [entry]);
  };
  let pos = 0;
  while (pos < text.length) {
    let nl = text.indexOf("\n", pos);
    if (nl === -1) nl = text.length;
    if (text.startsWith(HEADER_PREFIX, pos)) {
      close(pos);
      start = pos;
      path = headerPath(text.slice(pos, nl));
    }
    pos = nl + 1;
  }
  close(text.length);
  return { entries, deadBytes, bytes: text.length };
}

/** Reads and indexes a shard file; a missing or unreadable shard is empty. */
export function readShard(file: string): ShardIndex {
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    /* no shard yet */
  }
  return indexShard(text);
}

/**
 * Appends one record (a newline, then the entry text) in one write: O_APPEND writes
 * land whole at the end even with other writers, and the leading newline keeps the
 * entry's header on a line of its own after a write that a crash cut short.
 */
export function appendEntry(cacheDir: string, unitPath: string, record: Uint8Array): void {
  appendFileSync(shardFile(cacheDir, unitPath), record);
}

/**
 * Rewrites a shard with only the newest entry of each path (temp file + rename, so a
 * reader sees the old or the new shard). An entry another process appends between
 * the read and the rename is lost, which only means that unit is parsed again.
 */
export function compactShard(file: string): void {
  const { entries } = readShard(file);
  const live: string[] = [];
  for (const list of entries.values()) live.push(list[list.length - 1]!);
  const tmp = `${file}.${process.pid}-${threadId}.tmp`;
  try {
    writeFileSync(tmp, live.map((e) => `\n${e}\n`).join(""));
    renameSync(tmp, file);
  } catch {
    try {
      unlinkSync(tmp);
    } catch {
      /* never written */
    }
  }
}

/** Compaction pays off once superseded entries outweigh the live ones. */
export function needsCompaction(index: ShardIndex): boolean {
  return index.deadBytes > 64 * 1024 && index.deadBytes * 2 > index.bytes;
}
