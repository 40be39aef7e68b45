import type { Workspace } from "../workspace/load.js";
import { labelStorePath } from "./label-cache.js";
import { baseKey, fileStamp } from "./mining-cache.js";

/**
 * The digest of the units a workspace's attempts came from (its index's, or a full load's of
 * the configured sources): what caches of results computed from the attempts are keyed by.
 * Undefined for a load of other sources.
 */
export function attemptsDigest(ws: Pick<Workspace, "index" | "digest">): string | undefined {
  return ws.index?.digest ?? ws.digest;
}

/**
 * The mining cache's key for a workspace as it is now: index-backed or a full load of its
 * configured sources (undefined for other sources).
 */
export function miningKeyOf(
  ws: Pick<Workspace, "dir" | "config" | "index" | "digest">,
  labeler: Parameters<typeof labelStorePath>[1],
  handOutcomes: ReadonlyMap<string, string>,
): string | undefined {
  const digest = attemptsDigest(ws);
  return digest
    ? baseKey({
        digest,
        labeler,
        store: fileStamp(labelStorePath(ws.dir, labeler)),
        hand: handOutcomes,
        config: ws.config,
      })
    : undefined;
}
