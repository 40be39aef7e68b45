import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../errors.js";
import type { Attempt, SourceFormat } from "../model/attempt.js";
import { headerPath, readShard, shardFile } from "./cache-shards.js";
import { readSpanBytes } from "./indexed-attempt.js";
import { type CacheKey, decodeEntry } from "./parse-cache.js";

/** Where a unit's parse-cache entry sits in its shard file (bytes). */
export interface EntrySpan {
  shard: string;
  offset: number;
  length: number;
  /**
   * SHA-256 of the span's bytes when the index was written: bytes that still hash to it
   * are the entry fire wrote and checked, and decode without the model's schema.
   */
  sha256?: string;
}

/** A source unit as the workspace index records it. */
export interface UnitRef {
  path: string;
  stamp: string;
  span?: EntrySpan;
  /** The unit's format, when its importer reads files outside it (their stamp is in `stamp`). */
  outside?: SourceFormat;
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

const HEADER = Buffer.from('{"v":');
const NEXT_HEADER = Buffer.from('\n{"v":');

/**
 * The byte span of the newest entry of every unit path in the parse cache's shards,
 * found by scanning for entry header lines (only headers start with `{"v":`). Lets a
 * unit's attempts be read back with one positioned read instead of a whole shard. `only`:
 * the shard file names to read (default: all).
 */
export function entrySpans(cacheDir: string, only?: ReadonlySet<string>): Map<string, EntrySpan> {
  const spans = new Map<string, EntrySpan>();
  let names: string[] = [];
  try {
    names = readdirSync(cacheDir).filter(
      (n) => /^shard-[0-9a-f]{2}\.jsonl$/.test(n) && (!only || only.has(n)),
    );
  } catch {
    return spans;
  }
  for (const shard of names) {
    let buf: Buffer;
    try {
      buf = readFileSync(join(cacheDir, shard));
    } catch {
      continue;
    }
    let start = buf.subarray(0, HEADER.length).equals(HEADER) ? 0 : nextHeader(buf, 0);
    while (start !== -1) {
      const next = nextHeader(buf, start + 1);
      let end = next === -1 ? buf.length : next;
      while (end > start && buf[end - 1] === 10) end--;
      const nl = buf.indexOf(10, start);
      const path = headerPath(buf.toString("utf8", start, nl === -1 || nl > end ? end : nl));
      if (path !== undefined)
        spans.set(path, {
          shard,
          offset: start,
          length: end - start,
          sha256: sha256(buf.subarray(start, end)),
        });
      start = next;
    }
  }
  return spans;
}

function nextHeader(buf: Buffer, from: number): number {
  const at = buf.indexOf(NEXT_HEADER, from);
  return at === -1 ? -1 : at + 1;
}

/** Units whose decoded attempts stay in memory (most recently used). */
const KEEP_UNITS = 32;

/**
 * Reads the full attempts (events, verifier output) of an indexed workspace on demand,
 * from the parse cache: the entry's recorded span first, else the whole shard (the
 * shard was compacted or appended to since). Keeps the last few units decoded.
 */
export class EventStore {
  private readonly recent = new Map<number, Map<string, Attempt>>();

  constructor(
    readonly cacheDir: string,
    readonly options: string,
    readonly units: readonly UnitRef[],
  ) {}

  /** The full attempt `id` of unit `u` (its id in the unit, before any renaming). */
  attempt(u: number, id: string): Attempt {
    let byId = this.recent.get(u);
    if (byId) {
      this.recent.delete(u);
      this.recent.set(u, byId);
    } else {
      byId = this.readUnit(u);
      this.recent.set(u, byId);
      if (this.recent.size > KEEP_UNITS) this.recent.delete(this.recent.keys().next().value!);
    }
    const a = byId.get(id);
    if (!a) throw this.missing(u, `attempt ${id} is not in its parse-cache entry`);
    return a;
  }

  private readUnit(u: number): Map<string, Attempt> {
    const unit = this.units[u];
    if (!unit) throw new InputError("(workspace index)", undefined, `no source unit #${u}`);
    const key: CacheKey = { path: unit.path, stamp: unit.stamp, options: this.options };
    const result = (unit.span && this.readSpan(unit.span, key)) ?? this.readWholeShard(key);
    if (!result) throw this.missing(u, "its parse-cache entry is gone");
    return new Map(result.attempts.map((a) => [a.id, a]));
  }

  private readSpan(span: EntrySpan, key: CacheKey) {
    const read = readSpanBytes(this.cacheDir, span);
    // the bytes the index vouches for (by their hash) skip the schema; others are checked
    return read && decodeEntry(read.bytes.toString("utf8"), key, !read.same);
  }

  private readWholeShard(key: CacheKey) {
    const texts = readShard(shardFile(this.cacheDir, key.path)).entries.get(key.path) ?? [];
    for (let i = texts.length - 1; i >= 0; i--) {
      const hit = decodeEntry(texts[i]!, key, true);
      if (hit) return hit;
    }
    return undefined;
  }

  private missing(u: number, why: string): InputError {
    return new InputError(
      this.units[u]?.path ?? "(workspace index)",
      undefined,
      `cannot read the events: ${why}; reopen the workspace to read its sources again`,
    );
  }
}
