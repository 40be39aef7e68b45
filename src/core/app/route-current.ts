import type { InputError } from "../errors.js";
import type { RouteAudit } from "../route/audit.js";
import { readRouteAudit, routeAuditKey, writeRouteAudit } from "../route/audit-cache.js";
import type { Workspace } from "../workspace/load.js";

/**
 * `fire route`: `routingAudit` over the workspace's candidate files, with the files' errors.
 * Served from the last audit (core/route/audit-cache.ts) while the attempts, the candidate
 * files and the code are unchanged; else the candidates are read and compiled (loaded only
 * then) and the audit computed and kept. A cached audit had no candidate errors.
 */
export async function currentRoutingAudit(
  ws: Workspace,
  opts: { includeRetired?: boolean } = {},
): Promise<{ audit: RouteAudit; errors: readonly InputError[] }> {
  const key = routeAuditKey(ws, opts);
  const cached = key ? readRouteAudit(ws.dir, key) : undefined;
  if (cached) return { audit: cached, errors: [] };
  const [{ candidateSession }, { routingAudit }] = await Promise.all([
    import("./session.js"),
    import("./route.js"),
  ]);
  const { candidates, candidateErrors: errors } = candidateSession(ws.dir);
  const audit = routingAudit({ ws, candidates }, opts);
  // kept only when no file changed meanwhile and every file compiled
  if (key && errors.length === 0 && routeAuditKey(ws, opts) === key)
    await writeRouteAudit(ws.dir, key, audit);
  return { audit, errors };
}
