import type { StoredCandidate } from "../lifecycle/store.js";
import { mechanicsHash, type ReplayScreen } from "../screening/replay/measure.js";
import {
  type RunScreenEvidence,
  readReplayScreen,
  runScreensFor,
} from "../screening/replay/screen-files.js";
import { type Finding, type Verdict, verdictOf } from "./finding.js";

/** Every screen verdict known for one candidate, and the one they suggest together. */
export interface CandidateEvidence {
  policy: string;
  replay?: { screen: ReplayScreen; stale: boolean };
  runs: RunScreenEvidence[];
  /** The fold of every current screen's findings, each finding naming its screen. */
  suggested: Verdict;
}

/**
 * Pools the findings of the current (non-stale) replay screen and of every run screen of the
 * candidate's file and folds them (foldVerdict: harmful wins, then over-broad, inert,
 * promising); nothing screened is inconclusive. What `fire candidate verdict`, the export and
 * the freeze gate all read.
 */
export async function candidateEvidence(
  workspace: string,
  c: StoredCandidate,
): Promise<CandidateEvidence> {
  const screen = readReplayScreen(workspace, c.policy.key);
  const replay = screen
    ? { screen, stale: screen.candidateSha256 !== mechanicsHash(c.candidate) }
    : undefined;
  const runs = await runScreensFor(workspace, c.file);
  const findings: Finding[] = [];
  if (replay && !replay.stale)
    findings.push(...replay.screen.verdict.findings.map((f) => ({ ...f, screen: "replay" })));
  for (const r of runs) findings.push(...r.verdict.findings.map((f) => ({ ...f, screen: r.name })));
  if (replay?.stale) findings.push({ code: "stale-replay" });
  if (findings.length === 0) findings.push({ code: "not-screened", verdict: "inconclusive" });
  return {
    policy: c.policy.key,
    ...(replay ? { replay } : {}),
    runs,
    suggested: verdictOf(findings),
  };
}
