import { printable } from "../printable.js";
import { coreCodeStamp } from "../workspace/code-stamp.js";
import { attemptsDigest } from "../workspace/head.js";
import type { Workspace } from "../workspace/load.js";
import { workspacePaths } from "../workspace/paths.js";
import {
  fileStamp,
  keyOf,
  readKeyed,
  readKeyedText,
  type StoredText,
  writeKeyed,
  writeKeyedText,
} from "../workspace/stamped-cache.js";
import { labelStorePath, lastLabelerSync } from "./label-paths.js";
import type { TriageResult } from "./triage.js";

/**
 * `fire triage`'s last answer, kept beside the workspace index (`.fire/cache/triage.json`,
 * safe to delete). Triage is a black box here: the entry is keyed by everything it reads —
 * the index's digest (the attempts and their precomputed faults), the label store, the
 * decisions and hand outcomes files (by stamp), the config's fault markers, the workspace
 * folder (evidence names its files) and the code of core/ — and served only while that key
 * is unchanged. A task-level fault reads every failed attempt's verifier output; an
 * unchanged workspace is spared that on every command.
 */
const VERSION = 1;
/** Layout of the kept text (`writeKeyedText`). */
const TEXT_VERSION = 2;

/**
 * The key of triage over a workspace as it is now (index-backed, a full load of its sources
 * or its index's head); undefined for other sources.
 */
export async function triageKey(
  ws: Pick<Workspace, "dir" | "config" | "index" | "digest">,
): Promise<string | undefined> {
  return triageKeySync(ws);
}

/** `triageKey`, synchronously (the workbench keeps its glance so; see triage-glance.ts). */
export function triageKeySync(
  ws: Pick<Workspace, "dir" | "config" | "index" | "digest">,
): string | undefined {
  const digest = attemptsDigest(ws);
  if (!digest) return undefined;
  const labeler = lastLabelerSync(ws.dir);
  const paths = workspacePaths(ws.dir);
  return keyOf({
    v: VERSION,
    code: coreCodeStamp(),
    dir: ws.dir,
    digest,
    labeler: labeler ?? null,
    store: labeler ? fileStamp(labelStorePath(ws.dir, labeler)) : null,
    decisions: fileStamp(paths.decisions),
    hand: fileStamp(paths.handOutcomes),
    markers: [ws.config.mining.verifierFaultMarkers, ws.config.mining.environmentFaultMarkers],
  });
}

/** The triage stored under `key`, only when its bytes are the ones fire wrote. */
export function readTriageCache(dir: string, key: string): TriageResult | undefined {
  return readKeyed<TriageResult>(workspacePaths(dir).triageCache, VERSION, key);
}

/** Stores triage under `key`; failing to write only means the next read computes it again. */
export function writeTriageCache(dir: string, key: string, triage: TriageResult): Promise<void> {
  return writeKeyed(workspacePaths(dir).triageCache, VERSION, key, triage);
}

/**
 * The text of `fire triage` (`renderTriage`) kept under the same key as its triage, made
 * printable (core/printable.ts) and stored as bytes (`writeKeyedText`): at 100,000 attempts
 * the triage is 34 MB of JSON and its text takes seconds to render, where the 13 MB of text
 * alone go from the file to the terminal at once.
 */
export function readTriageText(dir: string, key: string): StoredText | undefined {
  return readKeyedText(workspacePaths(dir).triageText, TEXT_VERSION, key)?.bytes;
}

export function writeTriageText(dir: string, key: string, text: string): Promise<void> {
  return writeKeyedText(workspacePaths(dir).triageText, TEXT_VERSION, key, printable(text));
}
