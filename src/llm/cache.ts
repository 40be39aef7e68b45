import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { z } from "zod";
import { sha256Hex } from "../core/screening/canonical.js";
import type { ChatMessage } from "./prompt.js";

/** SHA-256 (hex) of a text: cache keys and batch ids. */
export const sha256 = sha256Hex;

/** Hash of exactly what would be sent (already redacted messages). */
export function promptHash(messages: ChatMessage[]): string {
  return sha256(JSON.stringify(messages.map((m) => [m.role, m.content])));
}

/** Cache key: model + prompt hash + schema version. The API key is never part of it. */
export function cacheKey(model: string, hash: string, schemaVersion: string): string {
  return sha256(`${model}\u0000${schemaVersion}\u0000${hash}`);
}

const CacheEntry = z.strictObject({
  key: z.string(),
  model: z.string(),
  schemaVersion: z.string(),
  promptHash: z.string(),
  createdAt: z.string(),
  usage: z.strictObject({ promptTokens: z.number(), completionTokens: z.number() }),
  /** The validated answer (JSON value). */
  answer: z.unknown(),
});
export type CacheEntry = z.infer<typeof CacheEntry>;

/** A content-addressed answer cache on disk: one JSON file per key, written atomically. */
export class AnswerCache {
  private readonly made = new Set<string>();
  constructor(readonly dir: string) {}

  private file(key: string): string {
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  async get(key: string): Promise<CacheEntry | undefined> {
    let text: string;
    try {
      text = await readFile(this.file(key), "utf8");
    } catch {
      return undefined;
    }
    try {
      const entry = CacheEntry.parse(JSON.parse(text));
      return entry.key === key ? entry : undefined;
    } catch {
      return undefined; // a corrupt entry is a miss; the next good answer overwrites it
    }
  }

  async put(entry: CacheEntry): Promise<void> {
    const sub = join(this.dir, entry.key.slice(0, 2));
    if (!this.made.has(sub)) {
      await mkdir(sub, { recursive: true });
      this.made.add(sub);
    }
    // atomic (temp file + rename); no fsync: a lost cache entry only costs a re-request
    await writeFileAtomic(this.file(entry.key), `${JSON.stringify(entry)}\n`, { fsync: false });
  }
}
