import { lstatSync } from "node:fs";
import { resolve } from "node:path";
import { NotFoundError } from "../errors.js";
import { type TriageOptions, type TriageResult, triage } from "../mine/triage.js";
import type { Attempt } from "../model/attempt.js";
import { updateConfig } from "../workspace/config.js";
import { type HandChange, type HandMarks, setHandMark } from "../workspace/hand-outcomes.js";
import { storedDigest } from "../workspace/index-file.js";
import type { Workspace } from "../workspace/load.js";
import { coveredBy, sourceEntry } from "../workspace/sources.js";
import { loadWorkspace } from "./open.js";

export { outcomeOf } from "../mine/triage.js";
/** Triage, one path: `fire triage` and the workbench both call these. */
export { currentTriage, loadTriageInputs, triageView } from "../mine/triage-view.js";
export type { HandChange, HandMarks, HandOutcome } from "../workspace/hand-outcomes.js";
export type { LoadOptions, Workspace } from "../workspace/load.js";
export { isIndexCurrent } from "../workspace/open.js";
export { workspacePaths } from "../workspace/paths.js";
export { eventCountOf, loadWorkspace, openCurrentWorkspace } from "./open.js";

/**
 * `fire import PATH…`: the paths join the workspace's `sources` (unless a source already
 * covers them) and are indexed. `open` loads the workspace over the given sources (the front
 * end's progress and worker settings); the workspace index is rewritten when there is one,
 * so the workbench's warm open stays fresh. Throws NotFoundError for a path that does not exist.
 */
export async function importSources(
  dir: string,
  paths: readonly string[],
  open: (sources: string[]) => Promise<Workspace>,
): Promise<Workspace> {
  const absPaths = paths.map((p) => resolve(p));
  absPaths.forEach((abs, i) => {
    try {
      lstatSync(abs);
    } catch {
      throw new NotFoundError(`no such file or directory: ${paths[i]}`);
    }
  });
  const entries = absPaths.map((abs) => sourceEntry(dir, abs));
  const ws = await open(entries);
  await updateConfig(dir, (raw) => {
    const sources = [...(raw.sources ?? ["traces/"])];
    absPaths.forEach((abs, i) => {
      if (!coveredBy(dir, sources, abs)) sources.push(entries[i]!);
    });
    return { ...raw, sources };
  });
  // A read of all sources, from the parse cache but for what was just imported, rewrites it.
  if (storedDigest(dir)) await loadWorkspace(dir);
  return ws;
}

/**
 * Hand outcomes: gives an attempt without a verifier outcome an outcome and/or tags
 * (`mining/outcomes.json`); mining and triage read them.
 */
export function markAttempt(
  dir: string,
  attemptId: string,
  change: HandChange,
  now = new Date(),
): Promise<HandMarks> {
  return setHandMark(dir, attemptId, change, now);
}

/** Triage of some of the workspace's attempts (a filtered list) with the session's inputs. */
export function triageOf(attempts: readonly Attempt[], inputs: TriageOptions): TriageResult {
  return triage(attempts, inputs);
}
