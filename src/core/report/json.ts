import { redactDeep } from "../redact.js";
import type { HarborRunSummary } from "../screening/run/harbor-progress.js";
import type { ScreenAnalysis } from "../stats/analyze.js";
import type { Contrast } from "../stats/contrast.js";
import { findingReason } from "../verdict/prose.js";

/** The machine-readable report: `{arms, contrasts, funnel, transitions, …}` (NaN → null). */
export interface ReportJson {
  screen: string;
  seed: string | number;
  cohorts: string[];
  arms: ScreenAnalysis["arms"];
  contrasts: Array<{
    arm: Contrast["arm"];
    comparator: Contrast["comparator"];
    cohort: Contrast["cohort"];
    nTasks: number;
    delta: number | null;
    ci: [number | null, number | null];
    p: number | null;
    test: "exact" | "random";
    passToFail: string[];
    failToPass: string[];
    unpaired: string[];
  }>;
  funnel: ScreenAnalysis["funnel"];
  transitions: ScreenAnalysis["transitions"];
  /** Per-task movement of every arm against the baseline, over all tasks. */
  movement: Record<string, Contrast["tasks"]>;
  unscorable: ScreenAnalysis["unscorable"];
  /** The findings in words: the verdict each argues for and why. */
  verdicts: Array<{ verdict: string; reason: string }>;
  findings: ScreenAnalysis["findings"];
  /** What the Harbor run cost and how far it got, as Harbor reported it (Harbor runs only). */
  harbor?: HarborRunSummary;
}

const num = (x: number): number | null => (Number.isFinite(x) ? x : null);

export function toReportJson(
  screen: string,
  a: ScreenAnalysis,
  harbor?: HarborRunSummary,
): ReportJson {
  const arms = JSON.parse(
    JSON.stringify(a.arms, (_k, v) => (typeof v === "number" && !Number.isFinite(v) ? null : v)),
  ) as ScreenAnalysis["arms"];
  return redactDeep({
    screen,
    seed: a.seed,
    cohorts: a.cohorts,
    arms,
    contrasts: a.contrasts.map((c) => ({
      arm: c.arm,
      comparator: c.comparator,
      cohort: c.cohort,
      nTasks: c.nTasks,
      delta: num(c.delta),
      ci: [num(c.ci[0]), num(c.ci[1])],
      p: num(c.p),
      test: c.test,
      passToFail: c.tasks.filter((t) => t.passToFail).map((t) => t.task),
      failToPass: c.tasks.filter((t) => t.failToPass).map((t) => t.task),
      unpaired: c.unpaired,
    })),
    funnel: a.funnel,
    transitions: a.transitions,
    movement: Object.fromEntries(
      a.contrasts
        .filter((c) => c.comparator === "baseline" && c.cohort === "all")
        .map((c) => [c.arm, c.tasks]),
    ),
    unscorable: a.unscorable,
    verdicts: a.findings.map((f) => ({ verdict: f.verdict ?? "", reason: findingReason(f) })),
    findings: a.findings,
    ...(harbor ? { harbor } : {}),
  });
}
