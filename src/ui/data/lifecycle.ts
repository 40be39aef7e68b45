import { relative } from "node:path";
import { saveTemplateDraft } from "../../core/draft/save-draft.js";
import { type FreezeResult, freezePortfolio } from "../../core/freeze/freeze.js";
import {
  promoteCandidate,
  retireCandidate,
  reviseCandidate,
} from "../../core/lifecycle/actions.js";
import { listCandidates, type StoredCandidate } from "../../core/lifecycle/store.js";
import type { Cluster } from "../../core/mine/cluster.js";
import type { Workspace } from "../../core/workspace/load.js";

/**
 * The lifecycle actions the workbench offers, each one call into core (src/core/draft,
 * lifecycle, freeze) exactly as the CLI commands make it.
 */

/** `fire draft --cluster ID` (template drafter, core saveTemplateDraft): writes candidates/drafts/<id>.yaml. */
export async function draftCluster(ws: Workspace, cluster: Cluster): Promise<string> {
  const r = await saveTemplateDraft(ws, cluster, new Date());
  if (r.ok) return r.file;
  if (r.reason === "invalid")
    throw new Error(`no valid draft for ${cluster.id}: ${r.problems.join("; ")}`);
  throw new Error(`${relative(ws.dir, r.file)} already exists: edit or revise it in Candidates`);
}

function stored(ws: Workspace, file: string): StoredCandidate {
  const hit = listCandidates(ws.dir).candidates.find((c) => c.file === file);
  if (!hit) throw new Error(`${relative(ws.dir, file)} does not compile: fix it first`);
  return hit;
}

/** `fire candidate promote` (draft → screening) with a note. */
export async function promote(ws: Workspace, file: string, note: string): Promise<void> {
  await promoteCandidate(stored(ws, file), note, new Date());
}

/** `fire candidate revise` with a note: a new version that supersedes the old (which stays). */
export async function revise(ws: Workspace, file: string, note: string): Promise<string> {
  const all = listCandidates(ws.dir).candidates;
  const r = await reviseCandidate(ws.dir, stored(ws, file), all, { note, now: new Date() });
  return r.file;
}

/** `fire candidate retire --reason`. */
export async function retire(ws: Workspace, file: string, reason: string): Promise<void> {
  await retireCandidate(stored(ws, file), reason, new Date());
}

/** `fire freeze --name NAME CANDIDATE` for one candidate (refusals come back as text). */
export async function freezeOne(
  ws: Workspace,
  file: string,
  name: string,
  force?: string,
): Promise<FreezeResult> {
  return freezePortfolio({
    workspace: ws.dir,
    name,
    candidates: [stored(ws, file)],
    attempts: ws.attempts,
    config: ws.config,
    ...(force ? { force: { reason: force } } : {}),
    now: new Date(),
  });
}
