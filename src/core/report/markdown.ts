import type { ScreenAnalysis } from "../stats/analyze.js";
import { renderForestText } from "./forest.js";
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

const cell = (s: string): string => s.replace(/\|/g, "\\|");

function sectionMd(s: Section): string {
  const out = [`## ${s.title}`, ""];
  if (s.table) {
    const [head, ...rows] = s.table;
    out.push(`| ${(head ?? []).map(cell).join(" | ")} |`);
    out.push(`|${(head ?? []).map((_, i) => (i === 0 ? " --- " : " ---: ")).join("|")}|`);
    for (const r of rows) out.push(`| ${r.map(cell).join(" | ")} |`);
  } else {
    for (const l of s.lines ?? []) out.push(`- ${l}`);
  }
  return out.join("\n");
}

/** The Markdown report (the forest plot as a fenced Unicode block). */
export function renderReportMarkdown(screen: string, a: ScreenAnalysis): string {
  const parts = [
    `# Screen ${screen}`,
    `Seed ${a.seed}; cohorts: ${a.cohorts.join(", ")}.`,
    sectionMd(armSection(a)),
    sectionMd(contrastSection(a)),
    ["## Forest plot (95% CI, ● = Δ)", "", "```", ...renderForestText(a.contrasts), "```"].join(
      "\n",
    ),
    sectionMd(funnelSection(a)),
    ...transitionSections(a).map(sectionMd),
    sectionMd(taskMovementSection(a)),
    sectionMd(movementSection(a)),
    sectionMd(unscorableSection(a)),
    sectionMd(verdictSection(a)),
  ];
  return `${parts.join("\n\n")}\n`;
}
