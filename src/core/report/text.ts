import { redact } from "../redact.js";
import type { HarborRunSummary } from "../screening/run/harbor-progress.js";
import type { ScreenAnalysis } from "../stats/analyze.js";
import { renderForestText } from "./forest.js";
import { alignTable } from "./format.js";
import { FOREST_TITLE, reportParts, type Section } from "./sections.js";

function sectionText(s: Section): string {
  const body = s.table ? alignTable(s.table) : (s.lines ?? []);
  return [s.title, "─".repeat(Math.min(80, s.title.length)), ...body.map((l) => `  ${l}`)].join(
    "\n",
  );
}

/** The terminal report: plain text with a Unicode forest plot (no colour codes). */
export function renderReportText(
  screen: string,
  a: ScreenAnalysis,
  harbor?: HarborRunSummary,
): string {
  const forest: Section = { title: FOREST_TITLE, lines: renderForestText(a.contrasts) };
  const parts = [
    `Screen ${screen} (seed ${a.seed}; cohorts: ${a.cohorts.join(", ")})`,
    ...reportParts(a, harbor).map((p) => sectionText(p === "forest" ? forest : p)),
  ];
  return redact(`${parts.join("\n\n")}\n`);
}
