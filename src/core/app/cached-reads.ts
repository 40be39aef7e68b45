import { join } from "node:path";
import { cachedSummary } from "../mine/clusters-summary.js";
import type { MineSummary } from "../mine/render-text.js";
import type { TriageResult } from "../mine/triage.js";
import { readTriageCache, readTriageText, triageKey } from "../mine/triage-cache.js";
import type { RouteAudit } from "../route/audit.js";
import { readRouteAudit, routeAuditKey } from "../route/audit-cache.js";
import { codeStamp, coreCodeStamp } from "../workspace/code-stamp.js";
import { attemptsDigest, currentHead, type WorkspaceHead } from "../workspace/head.js";
import type { Workspace } from "../workspace/load.js";
import { workspacePaths } from "../workspace/paths.js";
import {
  keyOf,
  readKeyedText,
  type StoredText,
  writeKeyedText,
} from "../workspace/stamped-cache.js";

/**
 * The read commands' answers as last computed, from the workspace's index head alone: no
 * importer, no index decoding, no schema library is loaded here
 * (test/runtime/import-graph.test.ts).
 * Each is served only under the key its computation stored it with (the index's digest,
 * the stamps of the files it read, the code of core/), so it is the answer the full path
 * would give; undefined whenever anything changed, and the command opens the workspace.
 */

export { renderCluster, renderMineSummary, renderTriage } from "../mine/render-text.js";
export { renderRouteAudit } from "../route/render.js";
export type { WorkspaceHead };

/** The workspace's head while its index matches the sources (core/workspace/head.ts). */
export function workspaceHead(dir: string): Promise<WorkspaceHead | undefined> {
  return currentHead(dir);
}

/**
 * `fire show`'s attempt: the index's row of the id `ref` names, decoded from its unit's
 * parse-cache entry alone (core/workspace/indexed-attempt.ts); undefined when that cannot
 * answer from fire's own bytes, and the command opens the workspace. `attemptRow` finds an
 * id the same way in a list of ids (an opened workspace's).
 */
export { attemptRow, indexedAttempt } from "../workspace/indexed-attempt.js";

/** `fire triage`'s last answer while nothing it reads changed. */
export async function cachedTriage(head: WorkspaceHead): Promise<TriageResult | undefined> {
  const key = await triageKey(head);
  return key ? readTriageCache(head.dir, key) : undefined;
}

/** `fire triage`'s last text (printable, as UTF-8 bytes) while nothing it reads changed. */
export async function cachedTriageText(head: WorkspaceHead): Promise<StoredText | undefined> {
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

/** What a command printed, kept verbatim (printable). */
export interface KeptOutput {
  /** As text when computed, as the kept UTF-8 bytes when read back (written as they are). */
  stdout: string | StoredText;
  stderr: string;
}

type Attempts = Pick<Workspace, "dir" | "index" | "digest">;

const TEXTS_VERSION = 2;
const textFile = (dir: string, name: string) => join(workspacePaths(dir).texts, `${name}.txt`);
const textKey = (ws: Attempts, name: string, parts: unknown) => {
  const digest = attemptsDigest(ws);
  return digest && keyOf({ code: coreCodeStamp(), digest, name, parts });
};

/**
 * The output of read command `name` that depends on the attempts alone (`fire attempts`), as
 * it printed it last with the same `parts` (its options and a stamp of the code that formats
 * it, `codeStamp`): served while the attempts (the index's digest) and the code of core/ are
 * unchanged, from bytes fire wrote.
 */
export function keptOutput(ws: Attempts, name: string, parts: unknown): KeptOutput | undefined {
  const key = textKey(ws, name, parts);
  const kept = key ? readKeyedText(textFile(ws.dir, name), TEXTS_VERSION, key) : undefined;
  const stderr = (kept?.meta as { stderr?: unknown } | null | undefined)?.stderr;
  return kept && typeof stderr === "string" ? { stdout: kept.bytes, stderr } : undefined;
}

/** What a command printed as it computed it (the text `keepOutput` keeps). */
export type ComputedOutput = KeptOutput & { stdout: string };

/** Keeps what `name` printed for `keptOutput` (one entry per command: its last options). */
export async function keepOutput(ws: Attempts, name: string, parts: unknown, out: ComputedOutput) {
  const key = textKey(ws, name, parts);
  if (key)
    await writeKeyedText(textFile(ws.dir, name), TEXTS_VERSION, key, out.stdout, {
      stderr: out.stderr,
    });
}

export { codeStamp };
