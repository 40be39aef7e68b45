import type { HarborRunSummary, HarborTotals } from "../screening/run/harbor-progress.js";
import type { ScreenAnalysis } from "../stats/analyze.js";
import { FUNNEL_STAGES } from "../stats/funnel.js";
import { findingLine } from "../verdict/prose.js";
import { fmtCi, fmtDelta, fmtMoney, fmtP, fmtRate, fmtSeconds } from "./format.js";

/** A titled table (header row first) or list of lines: the renderer-neutral report body. */
export interface Section {
  title: string;
  table?: string[][];
  lines?: string[];
}

export function armSection(a: ScreenAnalysis): Section {
  const table = [
    [
      "arm",
      "cohort",
      "tasks",
      "attempts",
      "k",
      "pass@1",
      "pass@k",
      "pass^k",
      "cost",
      "mean time",
      "unscorable",
    ],
  ];
  for (const [arm, byCohort] of Object.entries(a.arms)) {
    for (const s of Object.values(byCohort)) {
      table.push([
        arm,
        s.cohort,
        String(s.tasks),
        String(s.attempts),
        String(s.k),
        fmtRate(s.passAt1),
        fmtRate(s.passAtK),
        fmtRate(s.passHatK),
        fmtMoney(s.costUsd),
        fmtSeconds(s.meanDurationS),
        String(s.unscorable),
      ]);
    }
  }
  return { title: "Arms (the task is the unit)", table };
}

export function contrastSection(a: ScreenAnalysis): Section {
  const table = [["arm", "comparator", "cohort", "tasks", "Δ", "95% CI", "p", "test", "pass→fail"]];
  for (const c of a.contrasts) {
    table.push([
      c.arm,
      c.comparator,
      c.cohort,
      String(c.nTasks),
      fmtDelta(c.delta),
      fmtCi(c.ci),
      fmtP(c.p),
      c.test,
      String(c.tasks.filter((t) => t.passToFail).length),
    ]);
  }
  return {
    title: "Contrasts (mean per-task difference; bootstrap CI; paired sign-flip p)",
    table,
  };
}

export function funnelSection(a: ScreenAnalysis): Section {
  const table = [["arm", "attempts", ...FUNNEL_STAGES.map((s) => `→ ${s}`)]];
  for (const f of Object.values(a.funnel)) {
    table.push([
      f.arm,
      String(f.attempts),
      ...FUNNEL_STAGES.map((s) => {
        const v = f.stages[s];
        const m = f.marginal[s];
        return v === null ? "–" : m !== null && m !== v ? `${v} (${m})` : String(v);
      }),
    ]);
  }
  return {
    title: "Funnel (risky state → fired → behaviour marker → pass; marginal count in brackets)",
    table,
  };
}

export function transitionSections(a: ScreenAnalysis): Section[] {
  return Object.values(a.transitions).map((t) => {
    const header = [`${t.comparator} \\ ${t.arm}`, ...t.counts.map((_, j) => String(j))];
    const rows = t.counts.map((row, i) => [String(i), ...row.map(String)]);
    return {
      title: `Transitions: ${t.comparator} successes (rows) × ${t.arm} successes (columns), tasks`,
      table: [header, ...rows],
    };
  });
}

/** Per-task movement of the policy (else the first arm) against the baseline, over all tasks. */
export function taskMovementSection(a: ScreenAnalysis): Section {
  const pool = a.contrasts.filter((c) => c.comparator === "baseline" && c.cohort === "all");
  const c = pool.find((x) => x.arm === "policy") ?? pool[0];
  if (!c) return { title: "Per-task movement", lines: ["no contrast against baseline"] };
  const table = [["task", "cohort", c.comparator, c.arm, "Δ", "movement"]];
  for (const t of c.tasks) {
    table.push([
      t.task,
      t.cohort,
      `${t.comparator.successes}/${t.comparator.n}`,
      `${t.arm.successes}/${t.arm.n}`,
      fmtDelta(t.diff),
      t.passToFail
        ? "PASS→FAIL"
        : t.failToPass
          ? "fail→pass"
          : t.diff < 0
            ? "worse"
            : t.diff > 0
              ? "better"
              : "same",
    ]);
  }
  return { title: `Per-task movement: ${c.arm} vs ${c.comparator}`, table };
}

export function movementSection(a: ScreenAnalysis): Section {
  const lines: string[] = [];
  for (const c of a.contrasts) {
    if (c.cohort !== "all") continue;
    for (const t of c.tasks) {
      if (!t.passToFail) continue;
      lines.push(
        `PASS→FAIL ${t.task} (${t.cohort}): ${c.comparator} ${t.comparator.successes}/${t.comparator.n} → ${c.arm} ${t.arm.successes}/${t.arm.n}`,
      );
    }
  }
  return { title: "Pass→fail tasks", lines: lines.length ? lines : ["none"] };
}

export function unscorableSection(a: ScreenAnalysis): Section {
  return {
    title: "Unscorable attempts (excluded)",
    lines: a.unscorable.length
      ? a.unscorable.map((u) => `${u.arm} ${u.task} #${u.attempt}: ${u.reason}`)
      : ["none"],
  };
}

export function verdictSection(a: ScreenAnalysis): Section {
  return {
    title: "Verdicts this evidence supports (suggestions)",
    lines: a.findings.length
      ? a.findings.map(findingLine)
      : ["none (no policy-vs-baseline contrast)"],
  };
}

/** Title of the forest plot, which each renderer draws in its own medium. */
export const FOREST_TITLE = "Forest plot (95% CI, ● = Δ)";

/** One part of the report: a section, or the place of the forest plot. */
export type ReportPart = Section | "forest";

/**
 * What the Harbor run cost and how far it got, as Harbor reported it in its job result files:
 * every trial paid for, recovery runs and excluded trials included (the arm table's cost is
 * over the scored attempts only).
 */
export function harborRunSections(h: HarborRunSummary): Section[] {
  const row = (name: string, t: HarborTotals): string[] => [
    name,
    String(t.jobs),
    `${t.completed}/${t.total}`,
    String(t.errored),
    fmtMoney(t.costUsd),
    t.jobsWithoutCost ? String(t.jobsWithoutCost) : "0",
  ];
  const table = [["arm", "jobs", "trials", "errored", "cost", "jobs without cost"]];
  for (const [arm, t] of Object.entries(h.byArm)) table.push(row(arm, t));
  table.push(row("all", h));
  const title = "Harbor run (as Harbor reported it; recovery runs included)";
  return [
    { title, table },
    ...(h.problems.length ? [{ title: "Harbor job files not read", lines: h.problems }] : []),
  ];
}

/** The report's parts in order, shared by the text, Markdown and HTML renderers. */
export function reportParts(a: ScreenAnalysis, harbor?: HarborRunSummary): ReportPart[] {
  return [
    armSection(a),
    ...(harbor ? harborRunSections(harbor) : []),
    contrastSection(a),
    "forest",
    funnelSection(a),
    ...transitionSections(a),
    taskMovementSection(a),
    movementSection(a),
    unscorableSection(a),
    verdictSection(a),
  ];
}
