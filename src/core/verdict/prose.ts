import type { Effect, Finding, Verdict } from "./finding.js";

/**
 * The words for findings (the edge: CLI output, reports, exports, saved records). Nothing
 * decides on these strings; verdicts and the freeze gate read the findings themselves.
 */

const pct = (x: number): string => `${Math.round(x * 100)}%`;
const signed = (x: number): string => (x >= 0 ? "+" : "") + x.toFixed(3);
const effect = (c: Effect): string =>
  `Δ ${signed(c.delta)} [${signed(c.ci[0])}, ${signed(c.ci[1])}], p = ${c.p.toPrecision(3)}, ${c.nTasks} tasks`;

/** What a finding says, without the verdict it argues for. */
export function findingReason(f: Finding): string {
  switch (f.code) {
    case "no-positive-attempt":
      return "no positive attempt of its lineage in the workspace";
    case "positive-timely": {
      const line = `fires in time on ${f.timely.k}/${f.timely.n} positive attempt(s) (${pct(f.timely.rate)}; fires at all on ${f.firedAtAll})`;
      return f.verdict === "inert" ? `${line}, below ${pct(f.min)}` : line;
    }
    case "negative-firing":
      return f.verdict === "over-broad"
        ? `fires on ${f.tasks.k}/${f.tasks.n} nearby-negative task(s) (${pct(f.tasks.rate)} > ${pct(f.max)})`
        : `fires on ${f.tasks.k}/${f.tasks.n} nearby-negative task(s)`;
    case "silent-routing":
      return f.verdict === "over-broad"
        ? `routes ${f.tasks.k}/${f.tasks.n} silent task(s) (${pct(f.tasks.rate)} > ${pct(f.max)})`
        : `routes ${f.tasks.k}/${f.tasks.n} silent task(s)`;
    case "behaviour-marker":
      return `behaviour marker: ${f.positive.k}/${f.positive.n} positive, ${f.negative.k}/${f.negative.n} negative policy-free attempts`;
    case "pass-to-fail":
      return `pass→fail on ${f.tasks.length} task(s): ${f.tasks.map((t) => `${t.task} (${t.cohort})`).join(", ")}`;
    case "negative-effect":
      return `negative effect on ${f.effect.cohort}: ${effect(f.effect)}`;
    case "negative-point-estimate":
      return `negative point estimate on ${f.effect.cohort}: ${effect(f.effect)}`;
    case "run-negative-firing":
      return `fired on ${(f.rate * 100).toFixed(0)}% of ${f.n} negative/silent attempts (max ${f.max * 100}%)`;
    case "run-positive-firing":
      return `fired on ${(f.rate * 100).toFixed(0)}% of ${f.n} positive attempts (min ${f.min * 100}%)`;
    case "marker-not-above-baseline":
      return `behaviour marker no more frequent than baseline (${f.policy.toFixed(2)} vs ${f.baseline.toFixed(2)})`;
    case "baseline-effect":
      return f.verdict === "promising"
        ? `beats baseline on ${f.effect.cohort}: ${effect(f.effect)}${f.vsSham ? `; vs sham ${effect(f.vsSham)}` : ""}`
        : `on ${f.effect.cohort}: ${effect(f.effect)}`;
    case "no-run-verdict":
      return "no verdict from the run screen";
    case "stale-replay":
      return "replay screen is stale (the candidate changed since)";
    case "not-screened":
      return "not screened yet";
    case "recorded":
      return f.text;
  }
}

/** Findings of a run screen's analysis always name their verdict; a replay's only a bad one. */
const RUN_CODES: ReadonlySet<Finding["code"]> = new Set([
  "pass-to-fail",
  "negative-effect",
  "negative-point-estimate",
  "run-negative-firing",
  "run-positive-firing",
  "marker-not-above-baseline",
  "baseline-effect",
]);

/** One line of evidence: the verdict it argues for (when that matters), then what it says. */
export function findingLine(f: Finding): string {
  const named =
    f.verdict !== undefined &&
    (RUN_CODES.has(f.code) || f.verdict === "inert" || f.verdict === "over-broad");
  const line = named ? `${f.verdict}: ${findingReason(f)}` : findingReason(f);
  return f.screen ? `${f.screen}: ${line}` : line;
}

/** Every finding of a verdict as lines of evidence, in order. */
export function evidenceLines(v: Pick<Verdict, "findings">): string[] {
  return v.findings.map(findingLine);
}

/** A verdict as saved and printed: the verdict, its findings, and the same as lines of text. */
export function withEvidence(v: Verdict): Verdict & { evidence: string[] } {
  return { ...v, evidence: evidenceLines(v) };
}
