import { BASELINE_ARM, POLICY_ARM } from "../model/arm.js";
import { ALL_COHORT, isNegativeCohort, isPositiveCohort } from "../model/cohort.js";
import type { Effect, Finding } from "../verdict/finding.js";
import { DEFAULT_THRESHOLDS, type VerdictsConfig } from "../verdict/thresholds.js";
import type { Contrast } from "./contrast.js";
import type { Funnel } from "./funnel.js";
import type { Observation } from "./types.js";

interface Evidence {
  cohorts: readonly string[];
  contrasts: readonly Contrast[];
  funnel: Record<string, Funnel>;
}

const effect = (c: Contrast): Effect => ({
  cohort: c.cohort,
  delta: c.delta,
  ci: c.ci,
  p: c.p,
  nTasks: c.nTasks,
});

function firingRate(obs: readonly Observation[]): { rate: number; n: number } | undefined {
  const rec = obs.filter((o) => o.fired !== undefined);
  if (rec.length === 0) return undefined;
  return { rate: rec.filter((o) => o.fired).length / rec.length, n: rec.length };
}

/**
 * The findings the evidence gives for the policy arm, each with the verdict it argues for
 * (suggestions; the user decides): harmful on more pass→fail tasks among negatives than
 * allowed (any cohort when no cohorts were recorded) or a negative effect (CI below 0 over
 * ≥ `effectMinTasks` tasks, or a negative point estimate on a positive cohort); over-broad
 * when it fires on too many negative/silent attempts; inert when it fires too rarely on
 * positive tasks or its behaviour marker is no more frequent than baseline; promising when it
 * beats baseline (CI above 0, p ≤ `promisingMaxP`) and the sham in the positive cohort; else
 * inconclusive.
 */
export function runFindings(
  evidence: Evidence,
  observations: readonly Observation[],
  thresholds: VerdictsConfig = DEFAULT_THRESHOLDS,
): Finding[] {
  const out: Finding[] = [];
  const vsBase = evidence.contrasts.filter(
    (c) => c.arm === POLICY_ARM && c.comparator === BASELINE_ARM,
  );
  if (vsBase.length === 0) return out;
  const noCohorts = evidence.cohorts.length === 1 && evidence.cohorts[0] === ALL_COHORT;

  const lost = vsBase
    .filter((c) => (noCohorts ? c.cohort === ALL_COHORT : isNegativeCohort(c.cohort)))
    .flatMap((c) =>
      c.tasks.filter((t) => t.passToFail).map((t) => ({ task: t.task, cohort: c.cohort })),
    );
  if (lost.length > thresholds.harmfulMaxPassToFail) {
    out.push({
      code: "pass-to-fail",
      verdict: "harmful",
      tasks: lost,
      max: thresholds.harmfulMaxPassToFail,
    });
  }
  for (const c of vsBase) {
    // A one-task bootstrap interval is a point: a lone task is judged by pass→fail above.
    if (c.delta < 0 && c.ci[1] < 0 && c.nTasks >= thresholds.effectMinTasks) {
      out.push({
        code: "negative-effect",
        verdict: "harmful",
        effect: effect(c),
        minTasks: thresholds.effectMinTasks,
      });
    } else if (c.delta < 0 && c.cohort !== ALL_COHORT && !isNegativeCohort(c.cohort)) {
      out.push({ code: "negative-point-estimate", verdict: "harmful", effect: effect(c) });
    }
  }

  const policyObs = observations.filter((o) => o.arm === POLICY_ARM && !o.unscorable);
  const negative = firingRate(policyObs.filter((o) => isNegativeCohort(o.cohort)));
  if (negative && negative.rate > thresholds.overBroadMaxNegativeRate) {
    out.push({
      code: "run-negative-firing",
      verdict: "over-broad",
      ...negative,
      max: thresholds.overBroadMaxNegativeRate,
    });
  }

  const positiveObs = noCohorts ? policyObs : policyObs.filter((o) => isPositiveCohort(o.cohort));
  const positive = firingRate(positiveObs);
  const f = evidence.funnel.policy;
  if (positive && positive.rate < thresholds.inertMinFiringRate) {
    out.push({
      code: "run-positive-firing",
      verdict: "inert",
      ...positive,
      min: thresholds.inertMinFiringRate,
    });
  } else if (f && f.marginal.behavior !== null) {
    const base = evidence.funnel.baseline;
    if (base && base.marginal.behavior !== null && base.attempts && f.attempts) {
      const rp = (f.marginal.behavior ?? 0) / f.attempts;
      const rb = (base.marginal.behavior ?? 0) / base.attempts;
      if (rp <= rb)
        out.push({ code: "marker-not-above-baseline", verdict: "inert", policy: rp, baseline: rb });
    }
  }

  const target =
    vsBase.find((c) => isPositiveCohort(c.cohort)) ?? vsBase.find((c) => c.cohort === ALL_COHORT);
  if (target && !out.some((v) => v.verdict === "harmful")) {
    const vsSham = evidence.contrasts.find(
      (c) => c.arm === POLICY_ARM && c.comparator === "sham" && c.cohort === target.cohort,
    );
    const beats =
      target.ci[0] > 0 && target.p <= thresholds.promisingMaxP && (!vsSham || vsSham.delta > 0);
    out.push({
      code: "baseline-effect",
      verdict: beats ? "promising" : "inconclusive",
      effect: effect(target),
      ...(vsSham ? { vsSham: effect(vsSham) } : {}),
      maxP: thresholds.promisingMaxP,
    });
  }
  return out;
}
