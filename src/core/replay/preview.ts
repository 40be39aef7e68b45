import type { InputError } from "../errors.js";
import type { Attempt } from "../model/attempt.js";
import { compileCandidateText } from "../policy/load.js";
import type { CompiledPolicy } from "../policy/types.js";
import { replayAttempts } from "./replay.js";

/** Fired attempts out of the attempts in one group. */
export interface GroupCount {
  fired: number;
  total: number;
}

export interface PreviewCounts {
  positives: GroupCount;
  negatives: GroupCount;
  silent: GroupCount;
  /** Attempts the candidate routes to (eligibility held). */
  routed: number;
  firings: number;
}

export interface Preview {
  errors: InputError[];
  counts?: PreviewCounts;
}

/**
 * Live-preview counts of one policy over stored attempts (a quick grouping of replay
 * results, not a screen): positives = the attempts in the candidate's lineage, or when it
 * has none the failed attempts it routes to; negatives = the other routed attempts;
 * silent = attempts it does not route to.
 */
export function previewCounts(policy: CompiledPolicy, attempts: Attempt[]): PreviewCounts {
  const lineage = new Set(policy.candidate.lineage.attempts);
  const { attempts: replays } = replayAttempts([policy], attempts);
  const counts: PreviewCounts = {
    positives: { fired: 0, total: 0 },
    negatives: { fired: 0, total: 0 },
    silent: { fired: 0, total: 0 },
    routed: 0,
    firings: 0,
  };
  for (const r of replays) {
    const routed = r.eligible;
    if (routed) counts.routed++;
    const positive = lineage.size > 0 ? lineage.has(r.attemptId) : routed && r.outcome !== "pass";
    const group = positive ? counts.positives : routed ? counts.negatives : counts.silent;
    group.total++;
    if (r.firings.length > 0) group.fired++;
    counts.firings += r.firings.length;
  }
  return counts;
}

/** Compiles a candidate text (schema, safety, regexes) and replays it over the attempts. */
export function previewText(text: string, file: string, attempts: Attempt[]): Preview {
  const r = compileCandidateText(text, file);
  if (!r.policy) return { errors: r.errors };
  return { errors: [], counts: previewCounts(r.policy, attempts) };
}
