import { workspacePaths } from "./paths.js";
import { readStamped, writeStamped } from "./stamped-cache.js";

/**
 * A Bloom filter of a workspace's attempt ids, written beside its index
 * (`.fire/cache/index-ids.json`, stamped, with the index's digest): ~12 bits an id, 150 KB
 * at 100,000 attempts where the index lookup is 5.7 MB. A string the filter does not hold
 * is no attempt id of that index (every id is added, so it has no false negatives); one it
 * holds may be (about one in 300 strings that are not ids is held too), and the caller then
 * asks the lookup. It answers "surely not an id" for a cluster reference without reading the
 * ids (`mayNameAttempt`, indexed-attempt.ts), and nothing else.
 */

const VERSION = 1;
/** Bits per id and probes per string: a false "may be" for ~0.3% of strings that are not ids. */
const BITS_PER_ID = 12;
const PROBES = 8;

interface IdFilterFile {
  v: number;
  /** The digest of the index whose ids it holds. */
  digest: string;
  bits: number;
  probes: number;
  /** The filter's bytes, base64. */
  filter: string;
}

/** FNV-1a over the string's UTF-16 code units, from `seed` (32 bits, unsigned). */
function fnv1a(s: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The bit positions a string sets (double hashing: h1 + i·h2, h2 odd). */
function probes(s: string, bits: number, count: number): number[] {
  const h1 = fnv1a(s, 0x811c9dc5);
  const h2 = fnv1a(s, 0x5bd1e995) | 1;
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push(((h1 + Math.imul(i, h2)) >>> 0) % bits);
  return out;
}

/** A filter: its size in bits, the probes per string, and its bytes. */
export interface IdFilter {
  bits: number;
  probes: number;
  bytes: Uint8Array;
}

/** The filter of `ids` (what `writeIdFilter` stores). */
export function idFilterOf(ids: readonly string[]): IdFilter {
  const bits = Math.max(64, ids.length * BITS_PER_ID);
  const bytes = new Uint8Array(Math.ceil(bits / 8));
  for (const id of ids) for (const p of probes(id, bits, PROBES)) bytes[p >> 3]! |= 1 << (p & 7);
  return { bits, probes: PROBES, bytes };
}

/** Whether the filter may hold `s` (false: `s` is surely not one of its ids). */
export function filterMayHold(filter: IdFilter, s: string): boolean {
  return probes(s, filter.bits, filter.probes).every(
    (p) => (filter.bytes[p >> 3]! & (1 << (p & 7))) !== 0,
  );
}

/** Writes the filter of the index (`digest`) whose ids are `ids`, stamped. */
export async function writeIdFilter(
  workspaceDir: string,
  ids: readonly string[],
  digest: string,
): Promise<void> {
  const f = idFilterOf(ids);
  const file: IdFilterFile = {
    v: VERSION,
    digest,
    bits: f.bits,
    probes: f.probes,
    filter: Buffer.from(f.bytes).toString("base64"),
  };
  await writeStamped(workspacePaths(workspaceDir).indexIdFilter, JSON.stringify(file));
}

/**
 * The filter of the index whose digest is `digest`, when the file is the one fire wrote
 * for it (its stamp, its digest, this layout); else undefined (the caller asks the lookup).
 */
export function readIdFilter(workspaceDir: string, digest: string): IdFilter | undefined {
  try {
    const { value, trusted } = readStamped(workspacePaths(workspaceDir).indexIdFilter);
    const f = value as Partial<IdFilterFile>;
    if (!trusted || f.v !== VERSION || f.digest !== digest) return undefined;
    if (!Number.isInteger(f.bits) || !Number.isInteger(f.probes) || typeof f.filter !== "string")
      return undefined;
    const bytes = Buffer.from(f.filter, "base64");
    if (bytes.length !== Math.ceil((f.bits as number) / 8)) return undefined;
    return { bits: f.bits as number, probes: f.probes as number, bytes };
  } catch {
    return undefined;
  }
}
