import { redact } from "../redact.js";
import type { HarborRunSummary } from "../screening/run/harbor-progress.js";
import type { ScreenAnalysis } from "../stats/analyze.js";
import { FOREST_TITLE, reportParts, type Section } from "./sections.js";
import { escapeXml, renderForestSvg } from "./svg.js";

function sectionHtml(s: Section): string {
  const out = [`<h2>${escapeXml(s.title)}</h2>`];
  if (s.table) {
    const [head, ...rows] = s.table;
    out.push("<table>");
    out.push(`<tr>${(head ?? []).map((h) => `<th>${escapeXml(h)}</th>`).join("")}</tr>`);
    for (const r of rows) out.push(`<tr>${r.map((c) => `<td>${escapeXml(c)}</td>`).join("")}</tr>`);
    out.push("</table>");
  } else {
    out.push(`<ul>${(s.lines ?? []).map((l) => `<li>${escapeXml(l)}</li>`).join("")}</ul>`);
  }
  return out.join("\n");
}

const STYLE =
  "body{font-family:sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse;margin-bottom:1em}" +
  "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td:first-child,th:first-child{text-align:left}";

/** A self-contained HTML report with the forest plot as inline SVG. */
export function renderReportHtml(
  screen: string,
  a: ScreenAnalysis,
  harbor?: HarborRunSummary,
): string {
  const forest = `<h2>${escapeXml(FOREST_TITLE)}</h2>\n${renderForestSvg(a.contrasts)}`;
  const body = [
    `<h1>Screen ${escapeXml(screen)}</h1>`,
    `<p>Seed ${escapeXml(String(a.seed))}; cohorts: ${escapeXml(a.cohorts.join(", "))}.</p>`,
    ...reportParts(a, harbor).map((p) => (p === "forest" ? forest : sectionHtml(p))),
  ];
  return redact(
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Screen ${escapeXml(screen)}</title><style>${STYLE}</style></head>\n<body>\n${body.join("\n")}\n</body></html>\n`,
  );
}
