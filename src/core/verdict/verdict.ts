import type { ReplayScreen } from "../screening/replay/measure.js";
import { VERDICT_KINDS, type VerdictKind, type VerdictsConfig } from "./thresholds.js";

/** A suggested verdict with the evidence that produced it (the user decides). */
export interface SuggestedVerdict {
  verdict: VerdictKind;
  /** Every finding, in the words shown to the user. */
  evidence: string[];
}

const pct = (x: number): string => `${Math.round(x * 100)}%`;

/**
 * Replay-screen verdict: inert when it fires in time on fewer than `inertMinFiringRate` of the
 * positive attempts (never, or only after the failure point); over-broad when it fires on more
 * than `overBroadMaxNegativeRate` of the negative tasks or routes more than that share of the
 * silent tasks; promising otherwise. Harmful only comes from run screens (pass→fail).
 * Without any positive attempt in the workspace the screen is inconclusive.
 */
export function replayVerdict(s: ReplayScreen["summary"], t: VerdictsConfig): SuggestedVerdict {
  const evidence: string[] = [];
  const bad: VerdictKind[] = [];
  const p = s.positiveTimely;
  if (s.positiveFiring.n === 0) {
    return {
      verdict: "inconclusive",
      evidence: ["no positive attempt of its lineage in the workspace"],
    };
  }
  const line = `fires in time on ${p.k}/${p.n} positive attempt(s) (${pct(p.rate)}; fires at all on ${s.positiveFiring.k})`;
  if (p.rate < t.inertMinFiringRate) {
    bad.push("inert");
    evidence.push(`inert: ${line}, below ${pct(t.inertMinFiringRate)}`);
  } else evidence.push(line);
  const neg = s.negativeFiring;
  if (neg.n > 0 && neg.rate > t.overBroadMaxNegativeRate) {
    bad.push("over-broad");
    evidence.push(
      `over-broad: fires on ${neg.k}/${neg.n} nearby-negative task(s) (${pct(neg.rate)} > ${pct(t.overBroadMaxNegativeRate)})`,
    );
  } else evidence.push(`fires on ${neg.k}/${neg.n} nearby-negative task(s)`);
  const sil = s.silentRouting;
  if (sil.n > 0 && sil.rate > t.overBroadMaxNegativeRate) {
    if (!bad.includes("over-broad")) bad.push("over-broad");
    evidence.push(
      `over-broad: routes ${sil.k}/${sil.n} silent task(s) (${pct(sil.rate)} > ${pct(t.overBroadMaxNegativeRate)})`,
    );
  } else evidence.push(`routes ${sil.k}/${sil.n} silent task(s)`);
  evidence.push(
    `behaviour marker: ${s.behaviorPositive.k}/${s.behaviorPositive.n} positive, ${s.behaviorNegative.k}/${s.behaviorNegative.n} negative policy-free attempts`,
  );
  const verdict: VerdictKind = bad.includes("over-broad") ? "over-broad" : (bad[0] ?? "promising");
  return { verdict, evidence };
}

/** Run-screen suggestions (fire report) folded into one verdict: harmful wins. */
export function runScreenVerdict(
  suggestions: readonly { verdict: string; reason: string }[],
): SuggestedVerdict {
  const evidence = suggestions.map((s) => `${s.verdict}: ${s.reason}`);
  for (const v of VERDICT_KINDS) {
    if (v !== "inconclusive" && suggestions.some((s) => s.verdict === v))
      return { verdict: v, evidence };
  }
  return {
    verdict: "inconclusive",
    evidence: evidence.length ? evidence : ["no verdict from the run screen"],
  };
}
