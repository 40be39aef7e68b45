import { inflateRawSync } from "node:zlib";

/**
 * A bounded zip reader for trace archives (Inspect `.eval` logs). A zip bomb — a small file
 * whose entries inflate to gigabytes — cannot exhaust memory or time: an entry is inflated at
 * most to its cap (zlib stops there, whatever size the entry declares), and all entries of one
 * file together share one budget. What does not fit is reported for that entry; the others
 * still load.
 */

/** Largest inflated size of one entry (a sample of a long agent run is a few MB). */
export const ZIP_ENTRY_CAP = 64 * 1024 * 1024;
/** Largest inflated size of all entries read from one archive. */
export const ZIP_FILE_CAP = 512 * 1024 * 1024;

export interface ZipCaps {
  entry: number;
  file: number;
}

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  /** The size the archive declares (not trusted: inflation stops at the cap anyway). */
  size: number;
  localOffset: number;
}

/** Why a zip cannot be read at all. */
export class ZipError extends Error {}

const EOCD = 0x06054b50;
const EOCD64_LOCATOR = 0x07064b50;
const EOCD64 = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** The central directory's entries, first occurrence of each name only, in archive order. */
export function zipEntries(buf: Buffer): ZipEntry[] {
  let e = buf.length - 22;
  const lowest = Math.max(0, buf.length - 22 - 0xffff);
  while (e >= lowest && buf.readUInt32LE(e) !== EOCD) e--;
  if (e < lowest) throw new ZipError("no end of central directory");
  let count = buf.readUInt16LE(e + 10);
  let offset = buf.readUInt32LE(e + 16);
  if ((count === 0xffff || offset === 0xffffffff) && e >= 20) {
    const loc = e - 20;
    if (buf.readUInt32LE(loc) === EOCD64_LOCATOR) {
      const at = num(buf.readBigUInt64LE(loc + 8));
      if (at + 56 > buf.length || buf.readUInt32LE(at) !== EOCD64)
        throw new ZipError("bad zip64 end of central directory");
      count = num(buf.readBigUInt64LE(at + 32));
      offset = num(buf.readBigUInt64LE(at + 48));
    }
  }
  const out: ZipEntry[] = [];
  const seen = new Set<string>();
  let p = offset;
  for (let i = 0; i < count; i++) {
    if (p + 46 > buf.length || buf.readUInt32LE(p) !== CENTRAL)
      throw new ZipError(`bad central directory entry ${i}`);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const name = buf.toString("utf8", p + 46, p + 46 + nameLen);
    let size = buf.readUInt32LE(p + 24);
    let compressedSize = buf.readUInt32LE(p + 20);
    let localOffset = buf.readUInt32LE(p + 42);
    // zip64: the fields that overflowed are in the 0x0001 extra field, in this order
    let x = p + 46 + nameLen;
    const xEnd = x + extraLen;
    while (x + 4 <= xEnd) {
      const id = buf.readUInt16LE(x);
      const len = buf.readUInt16LE(x + 2);
      if (id === 1) {
        let f = x + 4;
        const take = () => {
          const v = f + 8 <= x + 4 + len ? num(buf.readBigUInt64LE(f)) : undefined;
          f += 8;
          return v;
        };
        if (size === 0xffffffff) size = take() ?? size;
        if (compressedSize === 0xffffffff) compressedSize = take() ?? compressedSize;
        if (localOffset === 0xffffffff) localOffset = take() ?? localOffset;
      }
      x += 4 + len;
    }
    if (!seen.has(name)) {
      seen.add(name);
      out.push({ name, method: buf.readUInt16LE(p + 10), compressedSize, size, localOffset });
    }
    p = xEnd + commentLen;
  }
  return out;
}

/** Reads entries of one archive within its caps; each read either gives the text or says why not. */
export class BoundedZip {
  private used = 0;
  constructor(
    private readonly buf: Buffer,
    private readonly caps: ZipCaps = { entry: ZIP_ENTRY_CAP, file: ZIP_FILE_CAP },
  ) {}

  /** The entry's bytes, or why it is not read (over a cap, unknown compression, damaged). */
  read(e: ZipEntry): { bytes: Buffer } | { why: string } {
    const left = this.caps.file - this.used;
    const cap = Math.min(this.caps.entry, left);
    const over = () =>
      cap < this.caps.entry
        ? `the archive's entries inflate to more than ${this.caps.file} bytes in all (the cap per file): not read`
        : `inflates to more than ${this.caps.entry} bytes (the cap per entry): not read`;
    if (e.size > cap) return { why: over() };
    const b = this.buf;
    const at = e.localOffset;
    if (at + 30 > b.length || b.readUInt32LE(at) !== LOCAL) return { why: "damaged entry" };
    const start = at + 30 + b.readUInt16LE(at + 26) + b.readUInt16LE(at + 28);
    const end = start + e.compressedSize;
    if (end > b.length) return { why: "damaged entry (data past the end of the file)" };
    const data = b.subarray(start, end);
    if (e.method === 0) {
      if (data.length > cap) return { why: over() };
      this.used += data.length;
      return { bytes: data };
    }
    if (e.method !== 8) return { why: `unknown compression method ${e.method}` };
    try {
      const bytes = inflateRawSync(data, { maxOutputLength: Math.max(1, cap) });
      this.used += bytes.length;
      return { bytes };
    } catch (err) {
      if ((err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
        this.used += cap; // the work was done
        return { why: over() };
      }
      return { why: `damaged entry (${(err as Error).message})` };
    }
  }
}

function num(v: bigint): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new ZipError("zip64 field out of range");
  return Number(v);
}
