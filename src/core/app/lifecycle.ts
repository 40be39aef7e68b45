import { relative } from "node:path";
import type { LearnedEligibility } from "../draft/eligibility.js";
import { type AskDraft, draftWithLlm } from "../draft/llm-drafter.js";
import { saveDraftCandidate } from "../draft/save-draft.js";
import { draftFromTemplate, mechanismOf } from "../draft/template-drafter.js";
import { loadTemplates } from "../draft/templates.js";
import { checkDraft, type DraftCheck } from "../draft/warnings.js";
import { type FreezeResult, freezePortfolio } from "../freeze/freeze.js";
import { promoteCandidate, retireCandidate, reviseCandidate } from "../lifecycle/actions.js";
import type { StoredCandidate } from "../lifecycle/store.js";
import type { Cluster } from "../mine/cluster.js";
import type { Candidate } from "../policy/schema.js";
import { taskTexts } from "../route/audit.js";
import {
  type CandidateSession,
  candidateAt,
  type LoadedCandidateSession,
  storedCandidates,
  type WorkspaceSession,
} from "./session.js";

/**
 * The lifecycle actions, one function each, called by the CLI commands and the workbench
 * alike. A candidate is named by its file (the workbench) or resolved first by the caller
 * (`candidateNamed`, the CLI).
 */

type Target = string | StoredCandidate;
const resolve = (s: CandidateSession, t: Target): StoredCandidate =>
  typeof t === "string" ? candidateAt(s, t) : t;

export interface DraftOptions {
  /** The LLM drafter's call (src/llm, passed in by the front end); the template drafter without. */
  ask?: AskDraft;
  now?: Date;
  ext?: "yaml" | "json";
}

/** What drafting a cluster did: saved (with its routing check), no valid draft, or a file already there. */
export type DraftOutcome =
  | {
      ok: true;
      file: string;
      drafter: "template" | "llm";
      candidate: Candidate;
      learned?: LearnedEligibility;
      /** Where the draft routes on the workspace and whether it fires on its lineage. */
      check: DraftCheck;
    }
  | { ok: false; reason: "invalid"; drafter: "template" | "llm"; problems: string[] }
  | { ok: false; reason: "exists"; file: string; candidate: Candidate };

/**
 * `fire draft --cluster ID [--llm]` / Mechanisms `d`: drafts from the cluster's member
 * attempts (family template, or the LLM with `ask`), writes candidates/drafts/<id>.<ext>
 * (never over an existing file) and checks where the draft routes and fires.
 */
export async function draft(
  s: Pick<WorkspaceSession, "ws">,
  cluster: Cluster,
  opts: DraftOptions = {},
): Promise<DraftOutcome> {
  const { ws } = s;
  const members = ws.attempts.filter((a) => cluster.attemptIds.includes(a.id));
  const templates = loadTemplates();
  const now = opts.now ?? new Date();
  const r = opts.ask
    ? await draftWithLlm(
        cluster,
        members,
        opts.ask,
        now,
        templates.byFamily.get(mechanismOf(cluster) ?? "stop-without-check"),
      )
    : draftFromTemplate(cluster, members, templates, now, { tasks: taskTexts(ws.attempts) });
  if (!r.ok) return { ok: false, reason: "invalid", drafter: r.drafter, problems: r.problems };
  const saved = await saveDraftCandidate(ws, r.candidate, opts.ext);
  if (!saved.ok) return { ...saved, candidate: r.candidate };
  return {
    ok: true,
    file: saved.file,
    drafter: r.drafter,
    candidate: r.candidate,
    ...(r.learned ? { learned: r.learned } : {}),
    check: checkDraft(r.candidate, cluster, ws.attempts),
  };
}

/** The draft's file, or an error saying why there is none (the workbench's one-key draft). */
export async function draftFile(
  s: Pick<WorkspaceSession, "ws">,
  cluster: Cluster,
): Promise<string> {
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
