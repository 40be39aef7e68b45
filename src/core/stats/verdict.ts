import { ALL_COHORT, isNegativeCohort, isPositiveCohort } from "../model/cohort.js";
import {
  DEFAULT_THRESHOLDS,
  type VerdictKind,
  type VerdictsConfig,
} from "../verdict/thresholds.js";
import type { Contrast } from "./contrast.js";
import type { Funnel } from "./funnel.js";
import type { Observation } from "./types.js";

export interface VerdictSuggestion {
  verdict: VerdictKind;
  reason: string;
}

interface Evidence {
  cohorts: readonly string[];
  contrasts: readonly Contrast[];
  funnel: Record<string, Funnel>;
}

const fmt = (x: number): string => (x >= 0 ? "+" : "") + x.toFixed(3);
const describe = (c: Contrast): string =>
  `Δ ${fmt(c.delta)} [${fmt(c.ci[0])}, ${fmt(c.ci[1])}], p = ${c.p.toPrecision(3)}, ${c.nTasks} tasks`;

function firingRate(obs: readonly Observation[]): { rate: number; n: number } | undefined {
  const rec = obs.filter((o) => o.fired !== undefined);
  if (rec.length === 0) return undefined;
  return { rate: rec.filter((o) => o.fired).length / rec.length, n: rec.length };
}

/**
 * Lifecycle verdicts the evidence supports for the policy arm (suggestions; the user
 * decides): harmful on more pass→fail tasks among negatives than allowed (any cohort when
 * no cohorts were recorded) or a negative effect (CI below 0 over ≥ 2 tasks, or a negative
 * point estimate on a positive cohort); over-broad when it fires on too many
 * negative/silent attempts; inert when it fires too rarely on positive tasks or its
 * behaviour marker is no more frequent than baseline; promising when it beats baseline
 * (CI above 0, p ≤ 0.1) and the sham in the positive cohort; else inconclusive.
 */
export function suggestVerdicts(
  evidence: Evidence,
  observations: readonly Observation[],
  thresholds: VerdictsConfig = DEFAULT_THRESHOLDS,
): VerdictSuggestion[] {
  const out: VerdictSuggestion[] = [];
  const vsBase = evidence.contrasts.filter(
    (c) => c.arm === "policy" && c.comparator === "baseline",
  );
  if (vsBase.length === 0) return out;
  const noCohorts = evidence.cohorts.length === 1 && evidence.cohorts[0] === ALL_COHORT;

  const lost = vsBase
    .filter((c) => (noCohorts ? c.cohort === ALL_COHORT : isNegativeCohort(c.cohort)))
    .flatMap((c) => c.tasks.filter((t) => t.passToFail).map((t) => `${t.task} (${c.cohort})`));
  if (lost.length > thresholds.harmfulMaxPassToFail) {
    out.push({
      verdict: "harmful",
      reason: `pass→fail on ${lost.length} task(s): ${lost.join(", ")}`,
    });
  }
  for (const c of vsBase) {
    // A one-task bootstrap interval is a point: a lone task is judged by pass→fail above.
    if (c.delta < 0 && c.ci[1] < 0 && c.nTasks >= 2) {
      out.push({ verdict: "harmful", reason: `negative effect on ${c.cohort}: ${describe(c)}` });
    } else if (c.delta < 0 && c.cohort !== ALL_COHORT && !isNegativeCohort(c.cohort)) {
      out.push({
        verdict: "harmful",
        reason: `negative point estimate on ${c.cohort}: ${describe(c)}`,
      });
    }
  }

  const policyObs = observations.filter((o) => o.arm === "policy" && !o.unscorable);
  const negative = firingRate(policyObs.filter((o) => isNegativeCohort(o.cohort)));
  if (negative && negative.rate > thresholds.overBroadMaxNegativeRate) {
    out.push({
      verdict: "over-broad",
      reason: `fired on ${(negative.rate * 100).toFixed(0)}% of ${negative.n} negative/silent attempts (max ${thresholds.overBroadMaxNegativeRate * 100}%)`,
    });
  }

  const positiveObs = noCohorts ? policyObs : policyObs.filter((o) => isPositiveCohort(o.cohort));
  const positive = firingRate(positiveObs);
  const f = evidence.funnel.policy;
  if (positive && positive.rate < thresholds.inertMinFiringRate) {
    out.push({
      verdict: "inert",
      reason: `fired on ${(positive.rate * 100).toFixed(0)}% of ${positive.n} positive attempts (min ${thresholds.inertMinFiringRate * 100}%)`,
    });
  } else if (f && f.marginal.behavior !== null) {
    const base = evidence.funnel.baseline;
    if (base && base.marginal.behavior !== null && base.attempts && f.attempts) {
      const rp = (f.marginal.behavior ?? 0) / f.attempts;
      const rb = (base.marginal.behavior ?? 0) / base.attempts;
      if (rp <= rb) {
        out.push({
          verdict: "inert",
          reason: `behaviour marker no more frequent than baseline (${rp.toFixed(2)} vs ${rb.toFixed(2)})`,
        });
      }
    }
  }

  const target =
    vsBase.find((c) => isPositiveCohort(c.cohort)) ?? vsBase.find((c) => c.cohort === ALL_COHORT);
  if (target && !out.some((v) => v.verdict === "harmful")) {
    const vsSham = evidence.contrasts.find(
      (c) => c.arm === "policy" && c.comparator === "sham" && c.cohort === target.cohort,
    );
    if (target.ci[0] > 0 && target.p <= 0.1 && (!vsSham || vsSham.delta > 0)) {
      out.push({
        verdict: "promising",
        reason: `beats baseline on ${target.cohort}: ${describe(target)}${vsSham ? `; vs sham ${describe(vsSham)}` : ""}`,
      });
    } else {
      out.push({ verdict: "inconclusive", reason: `on ${target.cohort}: ${describe(target)}` });
    }
  }
  return out;
}
