import type { LoadOptions, Workspace } from "../workspace/load.js";
import type { CurrentOptions } from "../workspace/open.js";

/**
 * Opening a workspace, for the front ends. Both load their modules on the first call, so a
 * front end that imports this file loads no importer, no parse pool and no miner until it
 * opens one (`core/app/workspace.ts` re-exports these for the rest of the use-case layer).
 */

/** How many events an attempt has, from the index when its events are not loaded yet. */
export { eventCountOf } from "../workspace/index-file.js";

/**
 * Reads every source unit (parsed, or from the parse cache) and rewrites the index. The
 * importers and the parse pool load on the first call: a command that answers from the
 * index loads none of them.
 */
export async function loadWorkspace(dir: string, opts?: LoadOptions): Promise<Workspace> {
  const { loadWorkspace: load } = await import("../workspace/load.js");
  return load(dir, opts);
}

/**
 * The workspace as it is now: from its index while the sources' stamps match it, else read
 * again (`onStale` says why first). The read commands open so.
 */
export async function openCurrentWorkspace(dir: string, opts?: CurrentOptions): Promise<Workspace> {
  const { openCurrentWorkspace: open } = await import("../workspace/open.js");
  return open(dir, opts);
}
