import { mkdir } from "node:fs/promises";
import { parentPort } from "node:worker_threads";
import type { SourceUnit } from "../ingest/discover.js";
import type { RewardKey } from "../ingest/types.js";
import { appendRecord, type CacheKey, encodeRecord } from "./parse-cache.js";
import { isCacheable, parseUnit } from "./parse-unit.js";

/** One unit to parse off the main thread. */
export interface ParseRequest {
  id: number;
  unit: SourceUnit;
  key: CacheKey;
  passThreshold: number;
  outputCap: number;
  rewardKey?: RewardKey;
  /** Parse cache folder; the worker appends the entry itself when it is cacheable. */
  cacheDir: string;
}

/**
 * The unit's parse-cache record (encodeRecord: validated attempts and errors), moved
 * to the main thread without a copy, or why parsing failed.
 */
export type ParseReply = { id: number; record: Uint8Array } | { id: number; error: string };

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
    const opts = {
      passThreshold: req.passThreshold,
      outputCap: req.outputCap,
      ...(req.rewardKey ? { rewardKey: req.rewardKey } : {}),
    };
    const result = await parseUnit(req.unit, opts);
    const record = encodeRecord(req.key, result);
    if (isCacheable(result)) {
      try {
        await ensureDir(req.cacheDir);
        appendRecord(req.cacheDir, req.key.path, record);
      } catch {
        /* the load goes on without this cache entry */
      }
    }
    return { id: req.id, record };
  } catch (err) {
    return { id: req.id, error: err instanceof Error ? err.message : String(err) };
  }
}

const port = parentPort;
port?.on("message", (req: ParseRequest) => {
  void handle(req).then((reply) =>
    "record" in reply
      ? port.postMessage(reply, [reply.record.buffer as ArrayBuffer])
      : port.postMessage(reply),
  );
});
