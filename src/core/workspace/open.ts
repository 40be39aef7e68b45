import { resolve } from "node:path";
import { loadConfig } from "./config.js";
import { indexKey, readIndex, unitsDigest } from "./index-file.js";
import type { LoadOptions, Workspace } from "./load.js";
import { parseOptionsKey } from "./options-key.js";
import { resolveSources } from "./sources.js";

export interface OpenOptions extends Pick<LoadOptions, "onProgress" | "signal"> {
  /** Called before the index is read (the first step of a warm open). */
  onIndex?: () => void;
}

/**
 * Opens a workspace for browsing: from its index when there is one for this config
 * (attempts without events; a warm open of 100,000 attempts in about a second), else by
 * a full load, which writes the index. Check `isIndexCurrent` afterwards: the index may
 * predate a change of the sources.
 */
export async function openWorkspace(dir: string, opts: OpenOptions = {}): Promise<Workspace> {
  const root = resolve(dir);
  const config = await loadConfig(root);
  const options = await parseOptionsKey(config);
  opts.signal?.throwIfAborted();
  opts.onIndex?.();
  const ws = readIndex(root, config, indexKey(options, config), options);
  if (ws) return ws;
  const { onIndex: _i, ...load } = opts;
  // the importers and the parse pool load only for a full read (a warm open needs none)
  const { loadWorkspace } = await import("./load.js");
  return loadWorkspace(root, load);
}

/**
 * Whether an index-backed workspace still matches its sources: discovers the units again
 * (stat and head of each, no parsing) and compares their paths and stamps with the index.
 * A fully loaded workspace is always current.
 */
export async function isIndexCurrent(ws: Workspace, signal?: AbortSignal): Promise<boolean> {
  if (!ws.index) return true;
  const { discoverUnits } = await import("../ingest/discover.js");
  const resolved = await resolveSources(ws.dir, ws.config.sources);
  const units: { path: string; stamp: string }[] = [];
  const seen = new Set<string>();
  for await (const item of discoverUnits(resolved.paths, signal ? { signal } : {})) {
    if (item.type === "unit" && !seen.has(item.unit.path)) {
      seen.add(item.unit.path);
      units.push({ path: item.unit.path, stamp: item.unit.stamp });
    }
  }
  signal?.throwIfAborted();
  const key = indexKey(await parseOptionsKey(ws.config), ws.config);
  return unitsDigest(key, units) === ws.index.digest;
}
