import { renderTriage } from "../mine/render-text.js";
import { readTriageText, triageKey, writeTriageText } from "../mine/triage-cache.js";
import { currentTriage } from "../mine/triage-view.js";
import type { Workspace } from "../workspace/load.js";

/**
 * `fire triage`'s answer (also re-exported by workspace.ts), in a module of its own so the
 * command loads the triage cache and what computing triage needs only on a miss.
 */

export { currentTriage };

/**
 * The text of `fire triage` over the workspace as it is now: kept under triage's own key
 * (core/mine/triage-cache.ts), else rendered from `currentTriage` and kept while nothing it
 * read changed meanwhile.
 */
export async function triageText(ws: Workspace): Promise<string> {
  const key = await triageKey(ws);
  const kept = key ? readTriageText(ws.dir, key) : undefined;
  if (kept !== undefined) return kept.toBuffer().toString("utf8");
  const text = renderTriage(await currentTriage(ws));
  if (key && (await triageKey(ws)) === key) await writeTriageText(ws.dir, key, text);
  return text;
}
