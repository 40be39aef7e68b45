import { redact } from "../redact.js";
import type { HarborRunSummary } from "../screening/run/harbor-progress.js";
import type { ScreenAnalysis } from "../stats/analyze.js";
import { renderForestText } from "./forest.js";
import { FOREST_TITLE, reportParts, type Section } from "./sections.js";

/** Markdown text that cannot carry raw HTML or break a table: `<>&` escaped, one line. */
export function mdText(s: string): string {
  return s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/\r?\n/g, " ");
}

const cell = (s: string): string => mdText(s).replace(/\|/g, "\\|");

function sectionMd(s: Section): string {
  const out = [`## ${mdText(s.title)}`, ""];
  if (s.table) {
    const [head, ...rows] = s.table;
    out.push(`| ${(head ?? []).map(cell).join(" | ")} |`);
    out.push(`|${(head ?? []).map((_, i) => (i === 0 ? " --- " : " ---: ")).join("|")}|`);
    for (const r of rows) out.push(`| ${r.map(cell).join(" | ")} |`);
  } else {
    for (const l of s.lines ?? []) out.push(`- ${mdText(l)}`);
  }
  return out.join("\n");
}

/** The Markdown report (the forest plot as a fenced Unicode block). */
export function renderReportMarkdown(
  screen: string,
  a: ScreenAnalysis,
  harbor?: HarborRunSummary,
): string {
  const forest = [`## ${FOREST_TITLE}`, "", "```", ...renderForestText(a.contrasts), "```"].join(
    "\n",
  );
  const parts = [
    `# Screen ${mdText(screen)}`,
    `Seed ${a.seed}; cohorts: ${mdText(a.cohorts.join(", "))}.`,
    ...reportParts(a, harbor).map((p) => (p === "forest" ? forest : sectionMd(p))),
  ];
  return redact(`${parts.join("\n\n")}\n`);
}
