import type { Workspace } from "../workspace/load.js";
import { labelStorePath } from "./label-cache.js";
import { baseKey, fileStamp } from "./mining-cache.js";

/** The mining cache's key for an index-backed workspace as it is now (undefined without one). */
export function miningKeyOf(
  ws: Pick<Workspace, "dir" | "config" | "index">,
  labeler: Parameters<typeof labelStorePath>[1],
  handOutcomes: ReadonlyMap<string, string>,
): string | undefined {
  return ws.index
    ? baseKey({
        digest: ws.index.digest,
        labeler,
        store: fileStamp(labelStorePath(ws.dir, labeler)),
        hand: handOutcomes,
        config: ws.config,
      })
    : undefined;
}
