import type { StoredCandidate } from "../lifecycle/store.js";
import { type RouteAudit, routeAudit, taskTexts } from "../route/audit.js";
import { type CandidateSession, type LoadedCandidateSession, storedCandidates } from "./session.js";

/** The candidates screens and audits look at: every valid one that is not retired (or all). */
export function liveCandidates(
  s: CandidateSession,
  opts: { includeRetired?: boolean } = {},
): StoredCandidate[] {
  return storedCandidates(s).filter((c) => opts.includeRetired || c.candidate.status !== "retired");
}

/** `fire route`: each live candidate's eligibility on each task text. */
export function routingAudit(
  s: LoadedCandidateSession,
  opts: { includeRetired?: boolean } = {},
): RouteAudit {
  return routeAudit(
    liveCandidates(s, opts).map((c) => c.policy),
    taskTexts(s.ws.attempts),
  );
}
