import { parentPort } from "node:worker_threads";
import type { SourceUnit } from "../ingest/discover.js";
import type { RewardKey } from "../ingest/types.js";
import { type CacheKey, encodeRecord, recordHash } from "./parse-cache.js";
import { isCacheable, parseUnit } from "./parse-unit.js";

/** One unit to parse off the main thread. */
export interface ParseRequest {
  id: number;
  unit: SourceUnit;
  key: CacheKey;
  passThreshold: number;
  outputCap: number;
  rewardKey?: RewardKey;
  taskDirs?: readonly string[];
}

/**
 * The unit's parse-cache record (encodeRecord: validated attempts and errors), moved to the
 * main thread without a copy, with its entry's hash when it belongs in the parse cache (the
 * main thread appends it there: it alone writes the shards, so it knows where each entry
 * lands), or why parsing failed.
 */
export type ParseReply =
  | { id: number; record: Uint8Array; sha256?: string }
  | { id: number; error: string };

async function handle(req: ParseRequest): Promise<ParseReply> {
  try {
    const opts = {
      passThreshold: req.passThreshold,
      outputCap: req.outputCap,
      ...(req.rewardKey ? { rewardKey: req.rewardKey } : {}),
      ...(req.taskDirs ? { taskDirs: req.taskDirs } : {}),
    };
    const result = await parseUnit(req.unit, opts);
    const record = encodeRecord(req.key, result);
    return isCacheable(result)
      ? { id: req.id, record, sha256: recordHash(record) }
      : { id: req.id, record };
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
