import { currentSummary } from "../mine/clusters-summary.js";
import type { MineSummary } from "../mine/render.js";
import type { Workspace } from "../workspace/load.js";

/**
 * What `fire clusters` prints of the current clusters (`renderMineSummary`), from a small
 * file kept while nothing it depends on changed; undefined before any `fire mine`. In a
 * module of its own (re-exported by mining.ts): the mining code loads only on a miss.
 */
export function clustersSummary(s: { readonly ws: Workspace }): Promise<MineSummary | undefined> {
  return currentSummary(s.ws);
}
