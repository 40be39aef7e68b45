import { relative } from "node:path";
import type { InputError } from "../errors.js";
import {
  type CandidateEntries,
  type CandidateEntry,
  readCandidateEntries,
  readCandidateEntriesInTurns,
  storedOf,
} from "../lifecycle/entries.js";
import { resolveCandidate, type StoredCandidate } from "../lifecycle/store.js";
import type { Decision } from "../mine/decisions.js";
import type { Label } from "../mine/label.js";
import { type TriageResult, triage } from "../mine/triage.js";
import { triageKey } from "../mine/triage-cache.js";
import { loadMiningState, type MiningState, type TriageInputs } from "../mine/triage-view.js";
import type { Attempt } from "../model/attempt.js";
import type { CompiledPolicy } from "../policy/types.js";
import type { HandMarks } from "../workspace/hand-outcomes.js";
import type { LoadProgress, Workspace } from "../workspace/load.js";
import { openWorkspace } from "../workspace/open.js";

/**
 * Everything a user action works on, loaded once: the workspace (config and attempts), the
 * last mining run's labels, the user's cluster decisions and every candidate file. The CLI
 * opens one per command, the workbench keeps one and reloads the parts an action changed.
 */
export interface WorkspaceSession {
  readonly ws: Workspace;
  readonly byId: ReadonlyMap<string, Attempt>;
  /** The last mining run's labels (empty before any `fire mine`). */
  readonly labels: ReadonlyMap<string, Label>;
  /** The user's cluster decisions (`fire cluster …`). */
  readonly decisions: readonly Decision[];
  /** Outcomes and tags given by hand to attempts without a verifier (`mining/outcomes.json`). */
  readonly hand: HandMarks;
  /** What triage takes besides the attempts: fault markers, labels, the user's exclusions. */
  readonly triageInputs: TriageInputs;
  /** Every candidate file, valid or not (one shape: core/lifecycle/entries.ts). */
  readonly candidates: readonly CandidateEntry[];
  readonly candidateErrors: readonly InputError[];
  /**
   * Set while the candidate files are not read yet (`deferCandidates`): `candidates` is
   * empty until `reloadCandidates` or `withCandidates(readPendingCandidates(…))`.
   */
  readonly candidatesPending?: true;
  /**
   * Triage's cache key (core/mine/triage-cache.ts) taken just before the labels, decisions
   * and hand outcomes were read: a triage of this session is kept under it (`keepGlance`)
   * only while it is still the key, so it never vouches for inputs read later.
   */
  readonly triageKey?: string;
}

export interface OpenSessionOptions {
  onProgress?: (p: LoadProgress) => void;
  signal?: AbortSignal;
  /**
   * Open from the workspace index when it is current for this config (the workbench:
   * attempts' events are then read on first use; see core/workspace/open.ts).
   */
  fromIndex?: boolean;
  /** Called when the index is about to be read. */
  onIndex?: () => void;
  /**
   * Leave the candidate files unread (`candidatesPending`): the workbench reads and
   * compiles them after its first usable frame, with `readPendingCandidates`.
   */
  deferCandidates?: boolean;
}

/** Loads a workspace with its labels, decisions and candidates. */
export async function openSession(
  dir: string,
  opts: OpenSessionOptions = {},
): Promise<WorkspaceSession> {
  const { fromIndex, onIndex, deferCandidates, ...load } = opts;
  const ws = fromIndex
    ? await openWorkspace(dir, { ...load, ...(onIndex ? { onIndex } : {}) })
    : await (await import("../workspace/load.js")).loadWorkspace(dir, load);
  return sessionOf(ws, { ...(deferCandidates ? { deferCandidates } : {}) });
}

/** A session over an already loaded workspace (labels, decisions and candidates read now). */
export async function sessionOf(
  ws: Workspace,
  opts: Pick<OpenSessionOptions, "deferCandidates"> = {},
): Promise<WorkspaceSession> {
  const key = await triageKey(ws);
  const mining = await loadMiningState(ws);
  const byId = ws.index?.byId ?? mapById(ws.attempts);
  const cands = opts.deferCandidates ? undefined : readCandidateEntries(ws.dir);
  return {
    ws,
    byId,
    ...miningParts(mining),
    candidates: cands?.entries ?? [],
    candidateErrors: cands?.errors ?? [],
    ...(cands ? {} : { candidatesPending: true as const }),
    ...(key ? { triageKey: key } : {}),
  };
}

function mapById(attempts: readonly Attempt[]): Map<string, Attempt> {
  const m = new Map<string, Attempt>();
  for (const a of attempts) m.set(a.id, a);
  return m;
}

const miningParts = (m: MiningState) => ({
  labels: m.labels ?? new Map<string, Label>(),
  decisions: m.decisions,
  hand: m.hand,
  triageInputs: m.inputs,
});

/** `fire triage` / the Triage screen: k/n per task and arm, exclusions with evidence. */
export function sessionTriage(s: Pick<WorkspaceSession, "ws" | "triageInputs">): TriageResult {
  return triage(s.ws.attempts, s.triageInputs);
}

/**
 * What the candidate actions need of a session: the workspace folder and its candidate files
 * (a WorkspaceSession and the workbench's view model are ones; `candidateSession` reads one
 * without loading attempts, for commands that need none).
 */
export interface CandidateSession {
  readonly ws: { readonly dir: string };
  readonly candidates: readonly CandidateEntry[];
}

/** A session that also has the loaded attempts and config (screens, freezing, drafting). */
export type LoadedCandidateSession = Pick<WorkspaceSession, "ws" | "candidates">;

/** The candidate files of a workspace folder, without loading its attempts. */
export function candidateSession(dir: string): CandidateSession & {
  candidateErrors: readonly InputError[];
} {
  const cands = readCandidateEntries(dir);
  return { ws: { dir }, candidates: cands.entries, candidateErrors: cands.errors };
}

/** The session after candidate files changed on disk, or were not read yet (the rest is kept). */
export function reloadCandidates<S extends WorkspaceSession>(s: S): S {
  return withCandidates(s, readCandidateEntries(s.ws.dir));
}

/** The session with these candidate entries (read now; no longer pending). */
export function withCandidates<S extends WorkspaceSession>(s: S, cands: CandidateEntries): S {
  const { candidatesPending: _pending, ...rest } = s;
  return { ...rest, candidates: cands.entries, candidateErrors: cands.errors } as unknown as S;
}

/**
 * Reads the candidate files of a session left pending (`deferCandidates`) a file per turn of
 * the event loop (the workbench, after its first usable frame); `withCandidates` applies them.
 */
export const readPendingCandidates = (
  s: { readonly ws: { readonly dir: string } },
  signal?: AbortSignal,
): Promise<CandidateEntries> => readCandidateEntriesInTurns(s.ws.dir, signal);

/** The session after a mining run or a cluster decision (labels and decisions re-read). */
export async function reloadMining<S extends WorkspaceSession>(s: S): Promise<S> {
  const { triageKey: _old, ...rest } = s;
  const key = await triageKey(s.ws);
  const mining = miningParts(await loadMiningState(s.ws));
  return { ...rest, ...mining, ...(key ? { triageKey: key } : {}) } as S;
}

/** Every valid candidate as a stored candidate (no file is read again). */
export function storedCandidates(s: CandidateSession): StoredCandidate[] {
  return s.candidates.flatMap((e) => storedOf(e) ?? []);
}

/** The compiled policies of every valid candidate (the routing pool of screens and audits). */
export function compiledPool(s: CandidateSession): CompiledPolicy[] {
  return s.candidates.flatMap((e) => (e.policy ? [e.policy] : []));
}

/** The candidate stored in `file`; an error names the file when it does not compile. */
export function candidateAt(s: CandidateSession, file: string): StoredCandidate {
  const hit = storedCandidates(s).find((c) => c.file === file);
  if (hit) return hit;
  const rel = relative(s.ws.dir, file);
  throw new Error(
    s.candidates.some((e) => e.file === file)
      ? `${rel} does not compile: fix it first`
      : `${rel} is not a candidate file of this workspace`,
  );
}

/** The candidate `id` (newest version) or `id@version`. */
export function candidateNamed(s: CandidateSession, ref: string): StoredCandidate {
  return resolveCandidate(storedCandidates(s), ref);
}
