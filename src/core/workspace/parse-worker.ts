import { mkdir } from "node:fs/promises";
import { parentPort } from "node:worker_threads";
import type { SourceUnit } from "../ingest/discover.js";
import { type CacheKey, encodeEntry, writeEntryText } from "./parse-cache.js";
import { isCacheable, parseUnit } from "./parse-unit.js";

/** One unit to parse off the main thread. */
export interface ParseRequest {
  id: number;
  unit: SourceUnit;
  key: CacheKey;
  passThreshold: number;
  outputCap: number;
  /** Parse cache folder; the worker writes the entry itself when it is cacheable. */
  cacheDir: string;
}

/** The unit's parse-cache entry text (validated attempts and errors), or why it failed. */
export type ParseReply = { id: number; text: string } | { id: number; error: string };

/** Cache folders this worker has made sure of (one mkdir per folder, not per unit). */
const madeDirs = new Map<string, Promise<unknown>>();

function ensureDir(dir: string): Promise<unknown> {
  let made = madeDirs.get(dir);
  if (!made) {
    made = mkdir(dir, { recursive: true });
    madeDirs.set(dir, made);
  }
  return made;
}

async function handle(req: ParseRequest): Promise<ParseReply> {
  try {
    const opts = { passThreshold: req.passThreshold, outputCap: req.outputCap };
    const result = await parseUnit(req.unit, opts);
    const text = encodeEntry(req.key, result);
    if (isCacheable(result)) {
      await ensureDir(req.cacheDir);
      await writeEntryText(req.cacheDir, req.key.path, text).catch(() => undefined);
    }
    return { id: req.id, text };
  } catch (err) {
    return { id: req.id, error: err instanceof Error ? err.message : String(err) };
  }
}

const port = parentPort;
port?.on("message", (req: ParseRequest) => {
  void handle(req).then((reply) => port.postMessage(reply));
});
