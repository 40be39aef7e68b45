import { resolve } from "node:path";
import { loadConfig } from "./config.js";
import { indexKey, readHead, storedDigest, unitsDigest, unitsNow, writeHead } from "./head.js";
import { readIndex } from "./index-file.js";
import type { LoadOptions, Workspace } from "./load.js";
import { parseOptionsKey } from "./options-key.js";

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
  return loadWorkspace(root, { ...load, light: true });
}

/** Why a read went to the sources rather than the index. */
export type StaleReason = "no index" | "sources changed";

export interface CurrentOptions
  extends Pick<LoadOptions, "onProgress" | "signal" | "workersAfter"> {
  /** Called before a full read, with the reason the index could not serve. */
  onStale?: (why: StaleReason) => void;
}

/**
 * Opens a workspace as it is now, from its index whenever that still matches the sources:
 * the units are discovered again (stat and head of each, no parsing) and their paths and
 * stamps compared with the index's digest. Only when they differ (or there is no usable
 * index) are the sources read — changed units parsed, the rest from the parse cache — and
 * the index rewritten, after `onStale` says why. The read commands of the CLI open so.
 */
export async function openCurrentWorkspace(
  dir: string,
  opts: CurrentOptions = {},
): Promise<Workspace> {
  const root = resolve(dir);
  const { onStale, ...load } = opts;
  const stored = storedDigest(root);
  if (stored !== undefined) {
    const config = await loadConfig(root);
    const options = await parseOptionsKey(config);
    const key = indexKey(options, config);
    const ws = readIndex(root, config, key, options);
    if (ws?.index && ws.index.digest === stored) {
      const units = await unitsNow(root, config.sources, ws.index, opts.signal);
      if (unitsDigest(key, units) === stored) {
        // an index written by an older fire has no head: the next read command can use one
        if (!readHead(root, stored))
          await writeHead(root, {
            digest: stored,
            key: JSON.stringify({ key, options }),
            units,
            outside: ws.index.outside,
            passedOver: ws.index.passedOver,
          });
        return ws;
      }
    }
    onStale?.(storedDigest(root) === undefined ? "no index" : "sources changed");
  } else onStale?.("no index");
  const { loadWorkspace } = await import("./load.js");
  return loadWorkspace(root, { ...load, light: true });
}

/**
 * Whether an index-backed workspace still matches its sources: discovers the units again
 * (stat and head of each, no parsing) and compares their paths and stamps with the index.
 * A fully loaded workspace is always current.
 */
export async function isIndexCurrent(ws: Workspace, signal?: AbortSignal): Promise<boolean> {
  if (!ws.index) return true;
  const units = await unitsNow(ws.dir, ws.config.sources, ws.index, signal);
  const key = indexKey(await parseOptionsKey(ws.config), ws.config);
  return unitsDigest(key, units) === ws.index.digest;
}
