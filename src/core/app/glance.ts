import type { TriageResult } from "../mine/triage.js";
import { triageKey, triageKeySync } from "../mine/triage-cache.js";
import { glanceOf, readTriageGlance, writeTriageGlanceSync } from "../mine/triage-glance.js";
import { currentHead } from "../workspace/head.js";
import type { Workspace } from "../workspace/load.js";

/**
 * The workbench's first frame before its index is read: triage's counts and task rows as
 * last computed (core/mine/triage-glance.ts), from the index's head alone. No importer, no
 * index decoder, no schema library is loaded here (test/runtime/import-graph.test.ts).
 */

export type { GlanceTask, TriageGlance } from "../mine/triage-glance.js";

/**
 * The glance of the workspace as it is now: only while its index matches the sources and
 * nothing triage reads changed since the glance was kept (else undefined, and the workbench
 * waits for the index). Never throws: an unreadable config or head is no glance.
 */
export async function workspaceGlance(dir: string) {
  try {
    const head = await currentHead(dir);
    const key = head && (await triageKey(head));
    return key ? readTriageGlance(head.dir, key) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Keeps the glance of `triage`, computed from inputs read under `key` (the session's
 * `triageKey`), when that is still the key now: a change made since (a decision from the
 * CLI, new labels) is not stored under its key with the counts from before it.
 */
export function keepGlance(
  ws: Pick<Workspace, "dir" | "config" | "index" | "digest" | "attempts">,
  key: string | undefined,
  triage: TriageResult,
): void {
  // synchronous (a few ms): `q` ends the workbench at once, and a glance written half-way
  // through would be lost with the key it was for
  if (!key || triageKeySync(ws) !== key) return;
  writeTriageGlanceSync(ws.dir, key, glanceOf(ws.attempts.length, triage));
}
