import type { ScreenAnalysis } from "../stats/analyze.js";
import { renderForestText } from "./forest.js";
import { alignTable } from "./format.js";
import {
  armSection,
  contrastSection,
  funnelSection,
  movementSection,
  type Section,
  taskMovementSection,
  transitionSections,
  unscorableSection,
  verdictSection,
} from "./sections.js";

function sectionText(s: Section): string {
  const body = s.table ? alignTable(s.table) : (s.lines ?? []);
  return [s.title, "─".repeat(Math.min(80, s.title.length)), ...body.map((l) => `  ${l}`)].join(
    "\n",
  );
}

/** The terminal report: plain text with a Unicode forest plot (no colour codes). */
export function renderReportText(screen: string, a: ScreenAnalysis): string {
  const parts = [
    `Screen ${screen} (seed ${a.seed}; cohorts: ${a.cohorts.join(", ")})`,
    sectionText(armSection(a)),
    sectionText(contrastSection(a)),
    sectionText({ title: "Forest plot (95% CI, ● = Δ)", lines: renderForestText(a.contrasts) }),
    sectionText(funnelSection(a)),
    ...transitionSections(a).map(sectionText),
    sectionText(taskMovementSection(a)),
    sectionText(movementSection(a)),
    sectionText(unscorableSection(a)),
    sectionText(verdictSection(a)),
  ];
  return `${parts.join("\n\n")}\n`;
}
