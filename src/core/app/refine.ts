import { ConflictError, NotFoundError } from "../errors.js";
import { type ReviseResult, reviseCandidate } from "../lifecycle/actions.js";
import type { StoredCandidate } from "../lifecycle/store.js";
import { currentClusters } from "../mine/run-mining.js";
import {
  type Refinement,
  type RefineProgress,
  type RefineResult,
  refineCandidate,
} from "../refine/refine.js";
import { mechanicsHash } from "../screening/replay/measure.js";
import { readReplayScreen } from "../screening/replay/screen-files.js";
import { screenCompetitors } from "../screening/replay/sets.js";
import {
  candidateAt,
  compiledPool,
  type LoadedCandidateSession,
  storedCandidates,
} from "./session.js";

export type { Refinement, RefineProgress, RefineResult };

export interface RefineOptions {
  /** Search budget in milliseconds (default 30 s); the best found so far comes back. */
  budgetMs?: number;
  signal?: AbortSignal;
  onProgress?: (p: RefineProgress) => void;
}

type Target = string | StoredCandidate;
const resolve = (s: LoadedCandidateSession, t: Target): StoredCandidate =>
  typeof t === "string" ? candidateAt(s, t) : t;

/**
 * `fire candidate refine NAME` / Candidates and Screens `f`: searches refinements of the
 * candidate from its latest replay screen (core/refine/refine.ts). A candidate without a
 * current replay screen is a usage error naming the command that makes one. Writes nothing.
 */
export async function refine(
  s: LoadedCandidateSession,
  t: Target,
  opts: RefineOptions = {},
): Promise<RefineResult> {
  const target = resolve(s, t);
  const key = target.policy.key;
  const screen = readReplayScreen(s.ws.dir, key);
  if (!screen)
    throw new NotFoundError(
      `${key} has no replay screen to refine from: run \`fire screen replay ${key}\` first`,
    );
  if (screen.candidateSha256 !== mechanicsHash(target.candidate))
    throw new ConflictError(
      `${key} changed since its replay screen: run \`fire screen replay ${key}\` again first`,
    );
  const mined = await currentClusters(s.ws);
  const preFailure = new Map<string, number>();
  for (const l of mined?.labels ?? [])
    if (l.preFailureState) preFailure.set(l.attemptId, l.preFailureState.eventIndex);
  return refineCandidate({
    target,
    screen,
    others: screenCompetitors(target.policy, compiledPool(s)),
    attempts: s.ws.attempts,
    preFailure,
    thresholds: s.ws.config.verdicts,
    retireCommand: `fire candidate retire ${key} --reason "no refinement separates its positives from its negatives"`,
    ...opts,
  });
}

/**
 * Accepts a refinement: a new revision of the candidate (next version, supersedes the old)
 * whose history says "refined from id@version: what changed". The old file stays.
 */
export function acceptRefinement(
  s: LoadedCandidateSession,
  t: Target,
  r: Pick<Refinement, "candidate" | "summary">,
  now = new Date(),
): Promise<ReviseResult> {
  const target = resolve(s, t);
  return reviseCandidate(s.ws.dir, target, storedCandidates(s), {
    edited: r.candidate,
    note: r.summary.join("; "),
    now,
    verb: "refined",
  });
}
