import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, unlinkSync, writeSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { basename, join } from "node:path";
import { z } from "zod";
import { InputError } from "../errors.js";
import { Attempt } from "../model/attempt.js";
import {
  appendEntry,
  compactShard,
  needsCompaction,
  PARSE_CACHE_VERSION,
  readShard,
  type ShardIndex,
  shardFile,
} from "./cache-shards.js";
import type { EntrySpan } from "./event-store.js";

/** Bump when the entry layout or the normalized model changes (kept in cache-shards.ts). */
export { PARSE_CACHE_VERSION };

/** What one source unit produced: validated attempts and the errors reported for it. */
export interface UnitResult {
  attempts: Attempt[];
  errors: InputError[];
}

/** Identifies a cache entry: a unit (path + stamp) read with particular options. */
export interface CacheKey {
  path: string;
  stamp: string;
  /** Ingest options that change the output (pass threshold, output cap). */
  options: string;
}

const Header = z.strictObject({
  v: z.literal(PARSE_CACHE_VERSION),
  path: z.string(),
  stamp: z.string(),
  options: z.string(),
  attempts: z.number().int().nonnegative(),
  errors: z.number().int().nonnegative(),
});
const ErrorLine = z.strictObject({
  e: z.strictObject({ file: z.string(), line: z.number().int().nullable(), message: z.string() }),
});

/** The file holding a unit's entry: the shard its path hashes to. */
export function cacheFile(cacheDir: string, unitPath: string): string {
  return shardFile(cacheDir, unitPath);
}

/** The first entry text of a unit (newest first) that decodes for this key. */
function firstHit(
  texts: string[] | undefined,
  key: CacheKey,
  validate: boolean,
): UnitResult | undefined {
  if (!texts) return undefined;
  for (let i = texts.length - 1; i >= 0; i--) {
    const hit = decodeEntry(texts[i]!, key, validate);
    if (hit) return hit;
  }
  return undefined;
}

/**
 * Reads the entry of a unit. Returns undefined on a miss: no entry, another stamp or
 * options, or an entry that is corrupt in any way (it is then rebuilt by the caller).
 * `present` (from listCacheEntries) saves a failing open per never-cached shard.
 */
export async function readCacheEntry(
  cacheDir: string,
  key: CacheKey,
  present?: Set<string>,
): Promise<UnitResult | undefined> {
  const file = cacheFile(cacheDir, key.path);
  if (present && !present.has(basename(file))) return undefined;
  return firstHit(readShard(file).entries.get(key.path), key, true);
}

/**
 * The parse cache as one load uses it: each shard is read once, when the first of
 * its units is looked up, and each unit's entry texts are let go once looked up.
 * `finish` compacts shards that are mostly superseded entries and removes entry
 * files of the older one-file-per-unit layout.
 */
export class ParseCacheSession {
  private readonly shards = new Map<string, ShardIndex>();
  /**
   * Shards this session appends to, kept open (O_APPEND) until finish, with the size this
   * session expects each to have (where its next record lands).
   */
  private readonly open = new Map<string, { fd: number; size: number }>();

  constructor(
    readonly cacheDir: string,
    private readonly present: Set<string>,
  ) {}

  get(key: CacheKey): UnitResult | undefined {
    const file = cacheFile(this.cacheDir, key.path);
    if (!this.present.has(basename(file))) return undefined;
    let index = this.shards.get(file);
    if (!index) {
      index = readShard(file);
      this.shards.set(file, index);
    }
    const texts = index.entries.get(key.path);
    index.entries.delete(key.path);
    return firstHit(texts, key, true);
  }

  /** Appends a unit's result to its shard; `cacheDir` must exist. */
  put(key: CacheKey, result: UnitResult): EntrySpan {
    return this.putRecord(key, encodeRecord(key, result));
  }

  /**
   * Appends a unit's record (encodeRecord) to its shard and tells where its entry is, so the
   * workspace index need not read the shards back to find it. `sha256` is the entry's hash
   * (recordHash) when the caller has it. This session is the only writer of the shards it
   * appends to in this process (parse workers hand their records here); should another
   * process append at the same time, the span is wrong and its hash says so when it is read.
   */
  putRecord(key: CacheKey, record: Uint8Array, sha256?: string): EntrySpan {
    const file = cacheFile(this.cacheDir, key.path);
    let shard = this.open.get(file);
    if (shard === undefined) {
      const fd = openSync(file, "a");
      shard = { fd, size: fstatSync(fd).size };
      this.open.set(file, shard);
    }
    let written = 0;
    while (written < record.length)
      written += writeSync(shard.fd, record, written, record.length - written);
    const offset = shard.size + 1; // the record's leading newline, then the entry
    shard.size += record.length;
    return {
      shard: basename(file),
      offset,
      length: record.length - 2,
      sha256: sha256 ?? recordHash(record),
    };
  }

  /**
   * Closes the shards, compacts those that are mostly superseded entries; returns the names
   * of the shards it rewrote (spans put returned for them are stale).
   */
  finish(): Set<string> {
    for (const { fd } of this.open.values()) closeSync(fd);
    this.open.clear();
    const rewritten = new Set<string>();
    for (const [file, index] of this.shards) {
      if (!needsCompaction(index)) continue;
      compactShard(file);
      rewritten.add(basename(file));
    }
    this.shards.clear();
    for (const name of this.present) {
      if (!OLD_LAYOUT.test(name)) continue;
      try {
        unlinkSync(join(this.cacheDir, name));
      } catch {
        /* gone already */
      }
    }
    return rewritten;
  }
}

/** Entry files of parse-cache version 1 (one per unit, named by a path hash). */
const OLD_LAYOUT = /^[0-9a-f]{32}\.jsonl$/;

/**
 * Parses entry text. `validate` re-checks every attempt with the zod model (entries
 * read from disk); text a parse worker of this process just encoded skips that.
 * Returns undefined for text of another key or corrupt text.
 */
export function decodeEntry(
  text: string,
  key: CacheKey,
  validate: boolean,
): UnitResult | undefined {
  try {
    const lines = text.split("\n");
    while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
    if (lines[0] === "") lines.shift(); // an appendable record starts with a newline
    const header = Header.parse(JSON.parse(lines[0] ?? ""));
    if (header.path !== key.path || header.stamp !== key.stamp || header.options !== key.options)
      return undefined;
    if (lines.length !== 1 + header.attempts + header.errors) return undefined;
    const attempts: Attempt[] = [];
    const errors: InputError[] = [];
    for (let i = 1; i < lines.length; i++) {
      const row = JSON.parse(lines[i]!) as Record<string, unknown>;
      if (i <= header.attempts) {
        attempts.push(validate ? Attempt.parse(row.a) : (row.a as Attempt));
      } else {
        const { e } = ErrorLine.parse(row);
        errors.push(new InputError(e.file, e.line ?? undefined, e.message));
      }
    }
    return { attempts, errors };
  } catch {
    return undefined;
  }
}

/** The entry lines of a unit: a header line, one line per attempt, one per error. */
function entryLines(key: CacheKey, result: UnitResult): string[] {
  const header = {
    v: PARSE_CACHE_VERSION,
    ...key,
    attempts: result.attempts.length,
    errors: result.errors.length,
  };
  const lines = [JSON.stringify(header)];
  for (const a of result.attempts) lines.push(JSON.stringify({ a }));
  for (const e of result.errors) lines.push(JSON.stringify({ e: e.toJSON() }));
  return lines;
}

/**
 * The entry as an appendable record: UTF-8 bytes of a newline and the entry text, in
 * a buffer of its own, so a parse worker can append it to the shard without encoding
 * the text again and hand it to the main thread without copying it (a transfer).
 */
export function encodeRecord(key: CacheKey, result: UnitResult): Uint8Array {
  const lines = entryLines(key, result);
  let bytes = 0;
  for (const l of lines) bytes += Buffer.byteLength(l, "utf8") + 1;
  const buf = Buffer.allocUnsafeSlow(bytes + 1);
  let at = buf.write("\n", 0, "latin1");
  for (const l of lines) {
    at += buf.write(l, at, "utf8");
    at += buf.write("\n", at, "latin1");
  }
  return buf;
}

/**
 * SHA-256 of the entry a record holds (without its leading and trailing newline): the hash
 * a workspace index records for the entry's span (core/workspace/event-store.ts).
 */
export function recordHash(record: Uint8Array): string {
  return createHash("sha256")
    .update(record.subarray(1, record.length - 1))
    .digest("hex");
}

/** The text of a record made by encodeRecord (for decodeEntry). */
export function recordText(record: Uint8Array): string {
  return Buffer.from(record.buffer, record.byteOffset, record.byteLength).toString("utf8");
}

/** Adds the entry of a unit to the cache (appended to its shard; `cacheDir` must exist). */
export async function writeCacheEntry(
  cacheDir: string,
  key: CacheKey,
  result: UnitResult,
): Promise<void> {
  appendRecord(cacheDir, key.path, encodeRecord(key, result));
}

/**
 * Appends a record (encodeRecord) to the unit's shard. No fsync: a lost or cut entry
 * is only parsed again. Synchronous: it runs in parse workers (or for a few units
 * in-thread), where the promise-based calls only add thread-pool round trips.
 */
export function appendRecord(cacheDir: string, unitPath: string, record: Uint8Array): void {
  appendEntry(cacheDir, unitPath, record);
}

/** Names of the entries present, to skip probing units that were never cached. */
export async function listCacheEntries(cacheDir: string): Promise<Set<string>> {
  try {
    return new Set(await readdir(cacheDir));
  } catch {
    return new Set();
  }
}
