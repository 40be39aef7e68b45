import type { ReplayScreen } from "../screening/replay/measure.js";
import { type Finding, type Verdict, verdictOf } from "./finding.js";
import type { VerdictsConfig } from "./thresholds.js";

/**
 * Replay-screen findings and their verdict: inert when it fires in time on fewer than
 * `inertMinFiringRate` of the positive attempts (never, or only after the failure point);
 * over-broad when it fires on more than `overBroadMaxNegativeRate` of the negative tasks or
 * routes more than that share of the silent tasks; promising otherwise. Harmful only comes
 * from run screens (pass→fail). Without any positive attempt in the workspace the screen is
 * inconclusive.
 */
export function replayVerdict(s: ReplayScreen["summary"], t: VerdictsConfig): Verdict {
  if (s.positiveFiring.n === 0)
    return verdictOf([{ code: "no-positive-attempt", verdict: "inconclusive" }]);
  const findings: Finding[] = [];
  const p = s.positiveTimely;
  findings.push({
    code: "positive-timely",
    timely: p,
    firedAtAll: s.positiveFiring.k,
    min: t.inertMinFiringRate,
    verdict: p.rate < t.inertMinFiringRate ? "inert" : "promising",
  });
  const max = t.overBroadMaxNegativeRate;
  const over = (r: { n: number; rate: number }) => r.n > 0 && r.rate > max;
  const neg = s.negativeFiring;
  findings.push({
    code: "negative-firing",
    tasks: neg,
    max,
    ...(over(neg) ? { verdict: "over-broad" as const } : {}),
  });
  const sil = s.silentRouting;
  findings.push({
    code: "silent-routing",
    tasks: sil,
    max,
    ...(over(sil) ? { verdict: "over-broad" as const } : {}),
  });
  findings.push({
    code: "behaviour-marker",
    positive: { k: s.behaviorPositive.k, n: s.behaviorPositive.n },
    negative: { k: s.behaviorNegative.k, n: s.behaviorNegative.n },
  });
  return verdictOf(findings);
}

/** A run screen's findings (its analysis) and their verdict; none is inconclusive. */
export function runScreenVerdict(findings: readonly Finding[]): Verdict {
  return verdictOf(
    findings.length ? [...findings] : [{ code: "no-run-verdict", verdict: "inconclusive" }],
  );
}
