import { relative } from "node:path";
import { type SavedDraft, saveTemplateDraft } from "../draft/save-draft.js";
import { type FreezeResult, freezePortfolio } from "../freeze/freeze.js";
import { promoteCandidate, retireCandidate, reviseCandidate } from "../lifecycle/actions.js";
import type { StoredCandidate } from "../lifecycle/store.js";
import type { Cluster } from "../mine/cluster.js";
import type { Candidate } from "../policy/schema.js";
import {
  type CandidateSession,
  candidateAt,
  type LoadedCandidateSession,
  storedCandidates,
} from "./session.js";

/**
 * The lifecycle actions, one function each, called by the CLI commands and the workbench
 * alike. A candidate is named by its file (the workbench) or resolved first by the caller
 * (`candidateNamed`, the CLI).
 */

type Target = string | StoredCandidate;
const resolve = (s: CandidateSession, t: Target): StoredCandidate =>
  typeof t === "string" ? candidateAt(s, t) : t;

/** `fire draft --cluster ID` with the template drafter: writes candidates/drafts/<id>.yaml. */
export function draft(
  s: LoadedCandidateSession,
  cluster: Cluster,
  opts: { now?: Date; ext?: "yaml" | "json" } = {},
): Promise<SavedDraft> {
  return saveTemplateDraft(s.ws, cluster, opts.now ?? new Date(), opts.ext);
}

/** The draft's file, or an error saying why there is none (the workbench's one-key draft). */
export async function draftFile(s: LoadedCandidateSession, cluster: Cluster): Promise<string> {
  const r = await draft(s, cluster);
  if (r.ok) return r.file;
  if (r.reason === "invalid")
    throw new Error(`no valid draft for ${cluster.id}: ${r.problems.join("; ")}`);
  throw new Error(`${relative(s.ws.dir, r.file)} already exists: edit or revise it in Candidates`);
}

/** `fire candidate promote`: draft → screening, with a note. */
export async function promote(s: CandidateSession, t: Target, note: string, now = new Date()) {
  await promoteCandidate(resolve(s, t), note, now);
}

/** `fire candidate retire --reason`. */
export async function retire(s: CandidateSession, t: Target, reason: string, now = new Date()) {
  await retireCandidate(resolve(s, t), reason, now);
}

/** `fire candidate revise`: a new version that supersedes the old one (which stays). */
export function revise(
  s: CandidateSession,
  t: Target,
  note: string,
  opts: { edited?: Candidate; now?: Date } = {},
) {
  return reviseCandidate(s.ws.dir, resolve(s, t), storedCandidates(s), {
    note,
    now: opts.now ?? new Date(),
    ...(opts.edited ? { edited: opts.edited } : {}),
  });
}

export interface FreezeOptions {
  name: string;
  /** Freeze despite missing evidence; the reason is recorded in the manifest. */
  force?: string;
  now?: Date;
}

/** `fire freeze --name NAME CANDIDATE…`: refusals come back in the result. */
export function freeze(
  s: LoadedCandidateSession,
  targets: readonly Target[],
  opts: FreezeOptions,
): Promise<FreezeResult> {
  return freezePortfolio({
    workspace: s.ws.dir,
    name: opts.name,
    candidates: targets.map((t) => resolve(s, t)),
    attempts: s.ws.attempts,
    config: s.ws.config,
    ...(opts.force ? { force: { reason: opts.force } } : {}),
    now: opts.now ?? new Date(),
  });
}
