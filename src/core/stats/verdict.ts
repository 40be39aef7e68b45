import type { Contrast } from "./contrast.js";
import type { Funnel } from "./funnel.js";
import { ALL_COHORT, type Observation } from "./types.js";

/** Cohorts where the policy should not help (nor fire, for silent tasks). */
export const NEGATIVE_COHORTS = ["silent", "nearby-negative", "negative"];
/** Cohorts where the policy is meant to act. */
export const POSITIVE_COHORTS = ["eligible", "positive"];

export type VerdictKind = "harmful" | "over-broad" | "inert" | "promising" | "inconclusive";

export interface VerdictSuggestion {
  verdict: VerdictKind;
  reason: string;
}

interface Evidence {
  contrasts: readonly Contrast[];
  funnel: Record<string, Funnel>;
}

const fmt = (x: number): string => (x >= 0 ? "+" : "") + x.toFixed(3);
const describe = (c: Contrast): string =>
  `Δ ${fmt(c.delta)} [${fmt(c.ci[0])}, ${fmt(c.ci[1])}], p = ${c.p.toPrecision(3)}, ${c.nTasks} tasks`;

/**
 * Lifecycle verdicts the evidence supports for the policy arm (suggestions only; the
 * user decides): harmful on any pass→fail among negatives or a negative effect,
 * over-broad when it fires on silent tasks, inert when it never fires, promising when
 * it beats baseline (CI above 0, p ≤ 0.1) and sham in the eligible cohort, else inconclusive.
 */
export function suggestVerdicts(
  evidence: Evidence,
  observations: readonly Observation[],
): VerdictSuggestion[] {
  const out: VerdictSuggestion[] = [];
  const vsBase = evidence.contrasts.filter(
    (c) => c.arm === "policy" && c.comparator === "baseline",
  );
  if (vsBase.length === 0) return out;

  for (const c of vsBase) {
    if (!NEGATIVE_COHORTS.includes(c.cohort)) continue;
    const lost = c.tasks.filter((t) => t.passToFail).map((t) => t.task);
    if (lost.length) {
      out.push({
        verdict: "harmful",
        reason: `pass→fail on ${c.cohort} task(s): ${lost.join(", ")}`,
      });
    }
  }
  for (const c of vsBase) {
    if (c.delta < 0 && c.ci[1] < 0) {
      out.push({ verdict: "harmful", reason: `negative effect on ${c.cohort}: ${describe(c)}` });
    } else if (c.delta < 0 && c.cohort !== ALL_COHORT && !NEGATIVE_COHORTS.includes(c.cohort)) {
      out.push({
        verdict: "harmful",
        reason: `negative point estimate on ${c.cohort}: ${describe(c)}`,
      });
    }
  }

  const policyObs = observations.filter((o) => o.arm === "policy" && !o.unscorable);
  const silentFired = policyObs.filter(
    (o) => o.fired === true && NEGATIVE_COHORTS.includes(o.cohort ?? ""),
  );
  if (silentFired.length) {
    const tasks = [...new Set(silentFired.map((o) => o.task))].sort();
    out.push({
      verdict: "over-broad",
      reason: `fired on negative/silent task(s): ${tasks.join(", ")}`,
    });
  }

  const f = evidence.funnel.policy;
  if (f && f.marginal.fired === 0) {
    out.push({ verdict: "inert", reason: `the policy never fired in ${f.attempts} attempts` });
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
    vsBase.find((c) => POSITIVE_COHORTS.includes(c.cohort)) ??
    vsBase.find((c) => c.cohort === ALL_COHORT);
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
