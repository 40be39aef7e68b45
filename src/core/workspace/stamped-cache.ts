import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * Big JSON caches fire writes for itself (the workspace index, label stores, the mining
 * cache), each with a stamp beside it: the SHA-256 of the bytes written, in `<file>.sha256`.
 * A reader whose bytes hash to the stamp reads exactly what fire wrote after checking it,
 * so it may skip the schema check (a full zod pass over 10,000 attempts' values is most of a
 * read command's time); bytes that do not match (edited, cut short, a stamp from another
 * write, no stamp) are checked against the schema as any input from outside is.
 */
const stampFile = (file: string) => `${file}.sha256`;

const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

/**
 * Writes `text` atomically, then its stamp (also atomically). The old stamp goes first, so
 * a reader between the writes finds no stamp, never a stamp that vouches for other bytes.
 */
export async function writeStamped(file: string, text: string): Promise<void> {
  const bytes = Buffer.from(text, "utf8");
  // loaded on the first write: a read (a first frame, a cached answer) does without it
  const { default: writeFileAtomic } = await import("write-file-atomic");
  rmSync(stampFile(file), { force: true });
  await writeFileAtomic(file, bytes);
  await writeFileAtomic(stampFile(file), `${sha256(bytes)}\n`);
}

/**
 * `writeStamped` without awaiting (a temporary file renamed over the cache, then its stamp
 * alike; no fsync): for small caches written where the process may end at the next key (the
 * workbench quits at once on q). Throws what writing throws.
 */
export function writeStampedSync(file: string, text: string): void {
  const bytes = Buffer.from(text, "utf8");
  const put = (target: string, data: Uint8Array | string) => {
    const tmp = `${target}.${process.pid}.tmp`;
    try {
      writeFileSync(tmp, data);
      renameSync(tmp, target);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
  };
  rmSync(stampFile(file), { force: true });
  put(file, bytes);
  put(stampFile(file), `${sha256(bytes)}\n`);
}

export interface StampedRead {
  value: unknown;
  /** The bytes are the ones fire wrote (they hash to the stamp): no schema check needed. */
  trusted: boolean;
}

/**
 * Reads a stamped cache: its parsed JSON and whether it may be trusted. Throws when the file
 * is absent or not JSON (callers treat a cache they cannot read as absent).
 */
export function readStamped(file: string): StampedRead {
  const { bytes, trusted } = readStampedBytes(file);
  return { value: JSON.parse(bytes.toString("utf8")), trusted };
}

/**
 * A stamped cache's bytes, unparsed, and whether they are the ones fire wrote (for a reader
 * that parses only the parts it needs). Throws when the file is absent.
 */
export function readStampedBytes(file: string): { bytes: Buffer; trusted: boolean } {
  const bytes = readFileSync(file);
  let stamp: string | undefined;
  try {
    stamp = readFileSync(stampFile(file), "utf8").trim();
  } catch {
    stamp = undefined;
  }
  return { bytes, trusted: stamp !== undefined && stamp === sha256(bytes) };
}

/** The SHA-256 of a cache key's parts (JSON), the key a keyed cache stores its answer under. */
export function keyOf(parts: unknown): string {
  return sha256(JSON.stringify(parts));
}

/**
 * The answer a keyed cache (one stamped file holding `{v, key, value}`) stores under `key`,
 * only when its bytes are the ones fire wrote and its layout version is `v`: such caches have
 * no schema of their own, so anything else is computed again.
 */
export function readKeyed<T>(file: string, v: number, key: string): T | undefined {
  try {
    const { value, trusted } = readStamped(file);
    const stored = value as { v?: unknown; key?: unknown; value?: T } | null;
    if (!trusted || stored?.v !== v || stored.key !== key || stored.value === undefined)
      return undefined;
    return stored.value;
  } catch {
    return undefined;
  }
}

/** Stores `value` under `key`; failing to write only means the next read computes it again. */
export async function writeKeyed(file: string, v: number, key: string, value: unknown) {
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeStamped(file, JSON.stringify({ v, key, value }));
  } catch {
    /* no cache: the next read computes the answer again */
  }
}

/** `writeKeyed` without awaiting (see `writeStampedSync`). */
export function writeKeyedSync(file: string, v: number, key: string, value: unknown): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeStampedSync(file, JSON.stringify({ v, key, value }));
  } catch {
    /* no cache: the next read computes the answer again */
  }
}

/**
 * A keyed cache of text that is printed as it is (a read command's kept output): one line
 * of JSON header `{v, key, meta}`, then the text's bytes, the whole stamped. A reader gets
 * the bytes without decoding them, parsing them as a JSON string or encoding them again for
 * the terminal (at 100,000 attempts `fire triage` prints 13 MB: those steps were half of
 * its time).
 */
export interface KeyedText {
  /** The text as UTF-8, a view into the file's bytes. */
  bytes: Buffer;
  /** What the writer stored beside it (small JSON). */
  meta: unknown;
}

/** The text stored under `key` (see `KeyedText`), only from bytes fire wrote in layout `v`. */
export function readKeyedText(file: string, v: number, key: string): KeyedText | undefined {
  try {
    const { bytes, trusted } = readStampedBytes(file);
    if (!trusted) return undefined;
    const nl = bytes.indexOf(0x0a);
    if (nl < 0) return undefined;
    const head = JSON.parse(bytes.toString("utf8", 0, nl)) as {
      v?: unknown;
      key?: unknown;
      meta?: unknown;
    } | null;
    if (head?.v !== v || head.key !== key) return undefined;
    return { bytes: bytes.subarray(nl + 1), meta: head.meta ?? null };
  } catch {
    return undefined;
  }
}

/** Stores `text` under `key` (see `KeyedText`); failing to write only means it is computed again. */
export async function writeKeyedText(
  file: string,
  v: number,
  key: string,
  text: string,
  meta: unknown = null,
): Promise<void> {
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeStamped(file, `${JSON.stringify({ v, key, meta })}\n${text}`);
  } catch {
    /* no cache: the next read computes the answer again */
  }
}

/** A file's identity and version: inode, size and mtime (ns); "none" when absent. */
export function fileStamp(file: string): string {
  const st = statSync(file, { bigint: true, throwIfNoEntry: false });
  return st ? `${st.ino}-${st.size}-${st.mtimeNs}` : "none";
}
