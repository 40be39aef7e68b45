import { createHash } from "node:crypto";
import { closeSync, openSync, readSync } from "node:fs";
import { basename, join } from "node:path";
import { InputError } from "../errors.js";
import type { Attempt } from "../model/attempt.js";
import { PARSE_CACHE_VERSION } from "./cache-shards.js";
import type { EntrySpan } from "./event-store.js";
import { INDEX_VERSION, type IndexLookup, indexFile, type WorkspaceHead } from "./head.js";
import { filterMayHold, readIdFilter } from "./id-filter.js";
import { memberValue, objectMembers } from "./json-members.js";
import { workspacePaths } from "./paths.js";
import { readStamped, readStampedBytes } from "./stamped-cache.js";

/**
 * One attempt of a current workspace, from its index and its unit's parse-cache entry alone
 * (`fire show`): the index's ids find the row, the row names the unit, and only that unit's
 * entry is read and only that attempt decoded. No schema library, no importer and no index
 * decoder is loaded: it answers only from bytes fire wrote (the index matching its stamp,
 * the entry matching the hash the index recorded), and anything else is left to the full
 * open (`undefined`), which checks what it reads.
 */

/** Ids listed in an ambiguity error before the rest are folded into a count. */
const MAX_LISTED = 10;

/**
 * The row of the attempt `ref` names among `ids` (in the workspace's order): the exact id
 * first, else the one id that contains `ref` anywhere (prefix or not); an input error when
 * none or several do.
 */
export function attemptRow(ids: readonly string[], ref: string): number {
  const exact = ids.indexOf(ref);
  if (exact >= 0) return exact;
  const matches: number[] = [];
  ids.forEach((id, i) => {
    if (id.includes(ref)) matches.push(i);
  });
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) {
    throw new InputError(ref, undefined, "no attempt with this id (see `fire attempts`)");
  }
  const listed = matches.slice(0, MAX_LISTED).map((i) => ids[i]);
  const more = matches.length > MAX_LISTED ? `, … ${matches.length - MAX_LISTED} more` : "";
  throw new InputError(
    ref,
    undefined,
    `matches ${matches.length} attempts: ${listed.join(", ")}${more} (give more of the id)`,
  );
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/**
 * The bytes of a parse-cache entry at its recorded span, and whether they are the ones the
 * index recorded (their hash); undefined when the span cannot be read.
 */
export function readSpanBytes(
  cacheDir: string,
  span: EntrySpan,
): { bytes: Buffer; same: boolean } | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(join(cacheDir, basename(span.shard)), "r");
    const buf = Buffer.allocUnsafe(span.length);
    const got = readSync(fd, buf, 0, span.length, span.offset);
    const same = got === span.length && span.sha256 === sha256(buf);
    return { bytes: buf.subarray(0, got), same };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const isCount = (x: unknown): x is number => Number.isInteger(x) && (x as number) >= 0;

/**
 * What a lookup reads of the index of the workspace `head` describes, from bytes fire wrote:
 * the lookup file written beside the index (a few MB at 100,000 attempts), else the parts a
 * lookup reads of the index itself (only those parsed: the ids are a quarter of its 2 MB at
 * 10,000 attempts; parsing all of it was most of `fire show`'s time).
 */
function indexSlice(head: WorkspaceHead): IndexLookup | undefined {
  return checked(lookupFile(head), head) ?? checked(scannedIndex(head), head);
}

function lookupFile(head: WorkspaceHead): IndexLookup | undefined {
  try {
    const { value, trusted } = readStamped(workspacePaths(head.dir).indexLookup);
    return trusted ? (value as IndexLookup) : undefined;
  } catch {
    return undefined;
  }
}

function scannedIndex(head: WorkspaceHead): IndexLookup | undefined {
  try {
    const { bytes, trusted } = readStampedBytes(indexFile(head.dir));
    if (!trusted) return undefined;
    const top = objectMembers(bytes);
    const tableAt = top.get("table");
    const table = tableAt && objectMembers(bytes, tableAt[0]);
    if (!table) return undefined;
    const part = (key: string) => memberValue(bytes, top, key);
    const column = (key: string) => memberValue(bytes, table, key);
    return {
      v: part("v"),
      key: part("key"),
      digest: part("digest"),
      units: part("units"),
      table: { ids: column("ids"), inner: column("inner"), unit: column("unit") },
    } as IndexLookup;
  } catch {
    return undefined;
  }
}

/** The lookup when it is of this layout and of the index `head` describes. */
function checked(index: IndexLookup | undefined, head: WorkspaceHead): IndexLookup | undefined {
  const t = index?.table;
  if (
    !index ||
    index.v !== INDEX_VERSION ||
    index.digest !== head.digest ||
    !Array.isArray(index.units) ||
    !Array.isArray(t?.ids) ||
    !Array.isArray(t.unit) ||
    !Array.isArray(t.inner) ||
    t.unit.length !== t.ids.length
  )
    return undefined;
  return index;
}

/**
 * The ids of the attempts of the workspace `head` describes, from its index alone (no
 * attempt decoded); undefined when the index is not the one fire wrote for this head.
 */
export function indexedIds(head: WorkspaceHead): readonly string[] | undefined {
  return indexSlice(head)?.table.ids;
}

/**
 * Whether `ref` may be an attempt id of the index `head` describes: false only when the
 * index's id filter (id-filter.ts, written with it) does not hold it, or when the lookup
 * file is the one fire wrote for this index and its bytes hold no JSON string equal to
 * `ref` (every id is written as one, by `JSON.stringify`, so an absent string is no id);
 * true when an id equals it, or when the index cannot say (then the caller takes the full
 * path). The filter spares a decision at 100,000 attempts reading and hashing the 5.7 MB
 * lookup to find no id; the lookup answers what the filter cannot rule out.
 */
export function mayNameAttempt(head: WorkspaceHead, ref: string): boolean {
  const filter = readIdFilter(head.dir, head.digest);
  if (filter && !filterMayHold(filter, ref)) return false;
  try {
    const { bytes, trusted } = readStampedBytes(workspacePaths(head.dir).indexLookup);
    const ours = trusted && bytes.includes(`"digest":${JSON.stringify(head.digest)}`);
    if (ours && !bytes.includes(JSON.stringify(ref))) return false;
  } catch {
    /* no lookup file: the index's columns answer */
  }
  const ids = indexedIds(head);
  return !ids || ids.includes(ref);
}

/**
 * The attempt `ref` names (as `attemptRow` finds it) in the workspace `head` describes, read
 * from its index and its unit's parse-cache entry; throws `attemptRow`'s input error when no
 * attempt or several match. Undefined when this cannot answer from fire's own bytes (an index
 * not matching its stamp or the head, an entry moved or changed since the index was written):
 * the caller then opens the workspace.
 */
export function indexedAttempt(head: WorkspaceHead, ref: string): Attempt | undefined {
  const index = indexSlice(head);
  if (!index) return undefined;
  const t = index.table;
  const row = attemptRow(t.ids, ref);
  const id = t.ids[row]!;
  const unit = index.units[t.unit[row]!];
  const inner = t.inner.find(([r]) => r === row)?.[1] ?? id;
  let options: unknown;
  try {
    options = (JSON.parse(index.key) as { options?: unknown }).options;
  } catch {
    return undefined;
  }
  if (!unit?.span || typeof options !== "string") return undefined;
  const read = readSpanBytes(workspacePaths(head.dir).parseCache, unit.span);
  if (!read?.same) return undefined;
  const found = entryAttempt(read.bytes, { path: unit.path, stamp: unit.stamp, options }, inner);
  // the id the workspace gives it (a load renames the later of two attempts claiming one id)
  return found && (found.id === id ? found : { ...found, id });
}

/**
 * Attempt `id` of a parse-cache entry whose bytes the index vouches for (by their hash: the
 * entry fire wrote; parse-cache.ts `decodeEntry` reads the same layout): the header must be
 * this unit's. Of several attempts with the id, the last, as the event store keeps it. Only
 * the attempt's own line is parsed when it starts as fire writes an attempt (its id first);
 * else every attempt line is.
 */
function entryAttempt(
  bytes: Buffer,
  key: { path: string; stamp: string; options: string },
  id: string,
): Attempt | undefined {
  try {
    const start = bytes[0] === NL ? 1 : 0; // an appendable record starts with a newline
    const headerEnd = bytes.indexOf(NL, start);
    const h = JSON.parse(
      bytes.toString("utf8", start, headerEnd === -1 ? bytes.length : headerEnd),
    ) as Record<string, unknown>;
    if (
      h.v !== PARSE_CACHE_VERSION ||
      h.path !== key.path ||
      h.stamp !== key.stamp ||
      h.options !== key.options ||
      !isCount(h.attempts) ||
      h.attempts === 0 ||
      headerEnd === -1
    )
      return undefined;
    const at = bytes.lastIndexOf(Buffer.from(`\n{"a":{"id":${JSON.stringify(id)},`));
    if (at > headerEnd) {
      const end = bytes.indexOf(NL, at + 1);
      const a = (
        JSON.parse(bytes.toString("utf8", at + 1, end === -1 ? bytes.length : end)) as {
          a?: Attempt;
        }
      ).a;
      if (a?.id === id) return a;
    }
    const lines = bytes.toString("utf8", headerEnd + 1).split("\n");
    let found: Attempt | undefined;
    for (let i = 0; i < h.attempts && i < lines.length; i++) {
      const a = (JSON.parse(lines[i]!) as { a?: Attempt }).a;
      if (a?.id === id) found = a;
    }
    return found;
  } catch {
    return undefined;
  }
}

const NL = 10;
