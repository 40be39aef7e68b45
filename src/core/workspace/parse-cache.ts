import { createHash } from "node:crypto";
import { readdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { threadId } from "node:worker_threads";
import { z } from "zod";
import { InputError } from "../errors.js";
import { Attempt } from "../model/attempt.js";

/** Bump when the entry layout or the normalized model changes: old entries then miss. */
export const PARSE_CACHE_VERSION = 1;

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

/** The entry file of a unit: one file per unit path, overwritten when the stamp changes. */
export function cacheFile(cacheDir: string, unitPath: string): string {
  return join(
    cacheDir,
    `${createHash("sha256").update(unitPath).digest("hex").slice(0, 32)}.jsonl`,
  );
}

/**
 * Reads the entry of a unit. Returns undefined on a miss: no entry, another stamp or
 * options, or an entry that is corrupt in any way (it is then rebuilt by the caller).
 * `present` (from listCacheEntries) saves a failing open per never-cached unit.
 */
export async function readCacheEntry(
  cacheDir: string,
  key: CacheKey,
  present?: Set<string>,
): Promise<UnitResult | undefined> {
  const file = cacheFile(cacheDir, key.path);
  if (present && !present.has(basename(file))) return undefined;
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return undefined;
  }
  return decodeEntry(text, key, true);
}

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
    if (lines[lines.length - 1] === "") lines.pop();
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

/** The entry text of a unit: a header line, one line per attempt, one per error. */
export function encodeEntry(key: CacheKey, result: UnitResult): string {
  const header = {
    v: PARSE_CACHE_VERSION,
    ...key,
    attempts: result.attempts.length,
    errors: result.errors.length,
  };
  const lines = [JSON.stringify(header)];
  for (const a of result.attempts) lines.push(JSON.stringify({ a }));
  for (const e of result.errors) lines.push(JSON.stringify({ e: e.toJSON() }));
  lines.push("");
  return lines.join("\n");
}

/** Writes the entry of a unit atomically (temp file + rename); `cacheDir` must exist. */
export async function writeCacheEntry(
  cacheDir: string,
  key: CacheKey,
  result: UnitResult,
): Promise<void> {
  await writeEntryText(cacheDir, key.path, encodeEntry(key, result));
}

/**
 * Temp file + rename, so a reader sees a whole entry or none. No fsync and no
 * symlink resolution (write-file-atomic does both, for user files): a lost entry
 * is only parsed again, and this runs once per unit of a large workspace.
 */
export async function writeEntryText(
  cacheDir: string,
  unitPath: string,
  text: string,
): Promise<void> {
  const file = cacheFile(cacheDir, unitPath);
  const tmp = `${file}.${process.pid}-${threadId}-${++tmpCounter}.tmp`;
  try {
    await writeFile(tmp, text);
    await rename(tmp, file);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

let tmpCounter = 0;

/** Names of the entries present, to skip probing units that were never cached. */
export async function listCacheEntries(cacheDir: string): Promise<Set<string>> {
  try {
    return new Set(await readdir(cacheDir));
  } catch {
    return new Set();
  }
}
