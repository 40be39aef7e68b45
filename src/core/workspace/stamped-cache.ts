import { createHash } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import writeFileAtomic from "write-file-atomic";

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
  rmSync(stampFile(file), { force: true });
  await writeFileAtomic(file, bytes);
  await writeFileAtomic(stampFile(file), `${sha256(bytes)}\n`);
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
  const bytes = readFileSync(file);
  let stamp: string | undefined;
  try {
    stamp = readFileSync(stampFile(file), "utf8").trim();
  } catch {
    stamp = undefined;
  }
  const trusted = stamp !== undefined && stamp === sha256(bytes);
  return { value: JSON.parse(bytes.toString("utf8")), trusted };
}
