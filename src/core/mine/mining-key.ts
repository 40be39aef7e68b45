import { attemptsDigest } from "../workspace/head.js";
import type { Workspace } from "../workspace/load.js";
import { labelStorePath } from "./label-paths.js";
import { baseKey, fileStamp } from "./mining-cache.js";

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
