import { createHash } from "node:crypto";
import {
  type BigIntStats,
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
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

/** The stamp beside `file`, undefined when there is none. */
function stampOf(file: string): string | undefined {
  try {
    return readFileSync(stampFile(file), "utf8").trim();
  } catch {
    return undefined;
  }
}

const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

/**
 * Writes `text` atomically, then its stamp (also atomically). The old stamp goes first, so
 * a reader between the writes finds no stamp, never a stamp that vouches for other bytes.
 */
export async function writeStamped(file: string, text: string | Buffer): Promise<void> {
  const bytes = typeof text === "string" ? Buffer.from(text, "utf8") : text;
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
  // hashed through a small buffer, then read once more as text from the same open file for
  // the parse: the file's bytes are never held beside its text and the parsed value (for
  // the 100 MB mining cache of 100,000 attempts, that was ~120 MB more at the peak)
  const fd = openSync(file, "r");
  try {
    const st = fstatSync(fd, { bigint: true });
    const { digest } = hashChunks(fd, st);
    const stamp = stampOf(file);
    const text = readFileSync(fd, "utf8"); // from offset 0: the reads above were positioned
    const now = fstatSync(fd, { bigint: true });
    // an edit in between changes them (a write renamed over it too: then checked, not trusted)
    const unchanged =
      now.size === st.size && now.mtimeNs === st.mtimeNs && now.ctimeNs === st.ctimeNs;
    const trusted = unchanged && stamp !== undefined && stamp === digest;
    return { value: JSON.parse(text), trusted };
  } finally {
    closeSync(fd);
  }
}

/**
 * A stamped cache's bytes, unparsed, and whether they are the ones fire wrote (for a reader
 * that parses only the parts it needs). Throws when the file is absent.
 */
export function readStampedBytes(file: string): { bytes: Buffer; trusted: boolean } {
  const bytes = readFileSync(file);
  const stamp = stampOf(file);
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

/** The start of a keyed cache's bytes as `writeKeyed` writes them, up to its value. */
const keyedHead = (v: number, key: string) =>
  Buffer.from(`${JSON.stringify({ v, key }).slice(0, -1)},"value":`, "utf8");

/**
 * The value of a keyed cache stored under `key`, as the JSON bytes `writeKeyed` wrote, not
 * parsed (for a caller that only checks the key, or moves the value under another key):
 * only when the bytes are the ones fire wrote and their head is `{v, key}`.
 */
export function readKeyedBytes(file: string, v: number, key: string): Buffer | undefined {
  try {
    const { bytes, trusted } = readStampedBytes(file);
    const head = keyedHead(v, key);
    if (!trusted || bytes.length <= head.length + 1) return undefined;
    if (!bytes.subarray(0, head.length).equals(head) || bytes.at(-1) !== 0x7d) return undefined;
    return bytes.subarray(head.length, -1);
  } catch {
    return undefined;
  }
}

/** Stores under `key` a value read by `readKeyedBytes` (its JSON bytes, unchanged). */
export async function writeKeyedBytes(file: string, v: number, key: string, value: Buffer) {
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeStamped(file, Buffer.concat([keyedHead(v, key), value, Buffer.from("}")]));
  } catch {
    /* no cache: the next read computes the answer again */
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
 * its time), and without holding them all: the file is hashed in chunks through one small
 * buffer, then handed out in chunks from the same open file (filling a fresh 17 MB buffer
 * cost ~50 ms of page faults here, hashing it ~35 ms more than hashing it by chunks).
 */
export interface KeyedText {
  /** The text as UTF-8, checked against the stamp. */
  bytes: StoredText;
  /** What the writer stored beside it (small JSON). */
  meta: unknown;
}

/** The checked text of a stamped file, read again from the file it was checked in. */
export interface StoredText {
  readonly size: number;
  /**
   * The text in order, in chunks of one reused buffer (each valid until the next is asked
   * for); the file is closed when they end or the loop stops. Throws when the file changed
   * since it was checked (each chunk is compared after it is read: nothing unchecked comes
   * out).
   */
  chunks(): Generator<Uint8Array>;
  /** The whole text in one buffer. */
  toBuffer(): Buffer;
}

const CHUNK = 1 << 20;
/** The longest header line a keyed text may have (its meta is small JSON). */
const HEADER_MAX = 1 << 20;

/** The text stored under `key` (see `KeyedText`), only from bytes fire wrote in layout `v`. */
export function readKeyedText(file: string, v: number, key: string): KeyedText | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const st = fstatSync(fd, { bigint: true });
    const headParts: Buffer[] = [];
    let headLength = 0;
    let nl = -1;
    const { digest, read: at } = hashChunks(fd, st, (chunk, at) => {
      if (nl >= 0) return;
      const i = chunk.indexOf(0x0a);
      if (i >= 0) nl = at + i;
      if (headLength < HEADER_MAX) {
        const part = i >= 0 ? chunk.subarray(0, i) : chunk;
        headParts.push(Buffer.from(part));
        headLength += part.length;
      }
    });
    const stamp = stampOf(file);
    if (nl < 0 || nl > HEADER_MAX || at !== Number(st.size) || stamp !== digest)
      throw new Error("not kept");
    const head = JSON.parse(Buffer.concat(headParts).toString("utf8")) as {
      v?: unknown;
      key?: unknown;
      meta?: unknown;
    } | null;
    if (head?.v !== v || head.key !== key) throw new Error("another key");
    const text = storedText(fd, st, nl + 1, at);
    fd = undefined; // the text closes it
    return { bytes: text, meta: head.meta ?? null };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The SHA-256 of the open file `fd` read from its start through one buffer of at most CHUNK
 * bytes (a fresh buffer the size of a large file costs its page faults), and how many bytes
 * were read; `each` sees every chunk (valid only during the call) and its offset.
 */
function hashChunks(
  fd: number,
  st: BigIntStats,
  each?: (chunk: Buffer, at: number) => void,
): { digest: string; read: number } {
  const buf = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, Number(st.size))));
  const hash = createHash("sha256");
  let at = 0;
  for (;;) {
    const n = readSync(fd, buf, 0, buf.length, at);
    if (n <= 0) break;
    const chunk = buf.subarray(0, n);
    hash.update(chunk);
    each?.(chunk, at);
    at += n;
  }
  return { digest: hash.digest("hex"), read: at };
}

/** Bytes `from`..`to` of the open file `fd`, as long as it stays as it was (`st`). */
function storedText(fd: number, st: BigIntStats, from: number, to: number): StoredText {
  let open = true;
  const close = () => {
    if (open) closeSync(fd);
    open = false;
  };
  // an edit changes mtime and ctime; a newer write renamed over the file unlinks this one,
  // which changes only its ctime (its bytes stay those checked): that one is read on
  const same = () => {
    const now = fstatSync(fd, { bigint: true });
    return (
      now.size === st.size &&
      now.mtimeNs === st.mtimeNs &&
      (now.ctimeNs === st.ctimeNs || now.nlink === 0n)
    );
  };
  function* chunks(): Generator<Uint8Array> {
    if (!open) throw new Error("stored text already read");
    try {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, to - from)));
      for (let at = from; at < to; ) {
        const n = readSync(fd, buf, 0, Math.min(buf.length, to - at), at);
        if (n <= 0) throw new Error("the kept text was cut short while read");
        if (!same()) throw new Error("the kept text changed while read");
        yield buf.subarray(0, n);
        at += n;
      }
    } finally {
      close();
    }
  }
  return {
    size: to - from,
    chunks,
    toBuffer() {
      const out = Buffer.allocUnsafe(to - from);
      let at = 0;
      for (const chunk of chunks()) {
        out.set(chunk, at);
        at += chunk.length;
      }
      return out;
    },
  };
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
