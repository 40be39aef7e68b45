import { cachedSummary } from "../mine/clusters-summary.js";
import type { MineSummary } from "../mine/render-text.js";
import type { TriageResult } from "../mine/triage.js";
import { readTriageCache, readTriageText, triageKey } from "../mine/triage-cache.js";
import type { RouteAudit } from "../route/audit.js";
import { readRouteAudit, routeAuditKey } from "../route/audit-cache.js";
import { currentHead, type WorkspaceHead } from "../workspace/head.js";

/**
 * The read commands' answers as last computed, from the workspace's index head alone: no
 * importer, no index decoding, no schema library is loaded here
 * (test/runtime/import-graph.test.ts).
 * Each is served only under the key its computation stored it with (the index's digest,
 * the stamps of the files it read, the code of core/), so it is the answer the full path
 * would give; undefined whenever anything changed, and the command opens the workspace.
 */

export { renderMineSummary, renderTriage } from "../mine/render-text.js";
export { renderRouteAudit } from "../route/render.js";
export type { WorkspaceHead };

/** The workspace's head while its index matches the sources (core/workspace/head.ts). */
export function workspaceHead(dir: string): Promise<WorkspaceHead | undefined> {
  return currentHead(dir);
}

/** `fire triage`'s last answer while nothing it reads changed. */
export async function cachedTriage(head: WorkspaceHead): Promise<TriageResult | undefined> {
  const key = await triageKey(head);
  return key ? readTriageCache(head.dir, key) : undefined;
}

/** `fire triage`'s last text while nothing it reads changed. */
export async function cachedTriageText(head: WorkspaceHead): Promise<string | undefined> {
  const key = await triageKey(head);
  return key ? readTriageText(head.dir, key) : undefined;
}

/** What `fire clusters` last printed while nothing it depends on changed. */
export function cachedClusters(head: WorkspaceHead): Promise<MineSummary | undefined> {
  return cachedSummary(head);
}

/** `fire route`'s last audit while the attempts, candidate files and code are unchanged. */
export function cachedRouteAudit(
  head: WorkspaceHead,
  opts: { includeRetired?: boolean },
): RouteAudit | undefined {
  const key = routeAuditKey(head, opts);
  return key ? readRouteAudit(head.dir, key) : undefined;
}
