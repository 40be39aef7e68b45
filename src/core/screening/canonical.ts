import type * as Crypto from "node:crypto";
import { builtin } from "../builtin.js";

/**
 * node:crypto is loaded on the first hash, not on import: loading it costs ~5 ms, and the
 * hook imports this module but hashes only for a frozen portfolio.
 */
const createHash = (alg: string) => builtin<typeof Crypto>("node:crypto").createHash(alg);

/** JSON with object keys sorted at every level: the same data always gives the same text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = sortKeys(x);
    }
    return out;
  }
  return v;
}

/** SHA-256 (hex) of text or bytes. */
export function sha256Hex(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

/** SHA-256 (hex) of the canonical JSON of a value. */
export function sha256Json(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
