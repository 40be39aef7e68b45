import type { StoredCandidate } from "../lifecycle/store.js";
import { mechanicsHash, type ReplayScreen } from "../screening/replay/measure.js";
import {
  type RunScreenEvidence,
  readReplayScreen,
  runScreensFor,
} from "../screening/replay/screen-files.js";
import { VERDICT_KINDS, type VerdictKind } from "./thresholds.js";
import type { SuggestedVerdict } from "./verdict.js";

/** Every screen verdict known for one candidate, and the one they suggest together. */
export interface CandidateEvidence {
  policy: string;
  replay?: { screen: ReplayScreen; stale: boolean };
  runs: RunScreenEvidence[];
  suggested: SuggestedVerdict;
}

/**
 * Folds the current (non-stale) replay screen and every run screen of the candidate's file:
 * harmful wins, then over-broad, inert, promising; nothing screened is inconclusive.
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
  const found: { verdict: VerdictKind; evidence: string[] }[] = [];
  if (replay && !replay.stale)
    found.push({
      verdict: replay.screen.verdict.verdict,
      evidence: replay.screen.verdict.evidence.map((e) => `replay: ${e}`),
    });
  for (const r of runs)
    found.push({
      verdict: r.verdict.verdict,
      evidence: r.verdict.evidence.map((e) => `${r.name}: ${e}`),
    });
  const evidence = found.flatMap((f) => f.evidence);
  if (replay?.stale) evidence.push("replay screen is stale (the candidate changed since)");
  const verdict = VERDICT_KINDS.find((v) => found.some((f) => f.verdict === v)) ?? "inconclusive";
  return {
    policy: c.policy.key,
    ...(replay ? { replay } : {}),
    runs,
    suggested: { verdict, evidence: evidence.length ? evidence : ["not screened yet"] },
  };
}
