import type { Contrast } from "../stats/contrast.js";
import { contrastLabel, forestRange } from "./forest.js";
import { fmtCi, fmtDelta, fmtP, isNum } from "./format.js";

export const escapeXml = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** The forest plot as a standalone SVG element (embedded in the HTML report). */
export function renderForestSvg(contrasts: readonly Contrast[]): string {
  const row = 26;
  const labelW = 260;
  const plotW = 320;
  const statsW = 300;
  const top = 20;
  const height = top + row * Math.max(1, contrasts.length) + 30;
  const width = labelW + plotW + statsW;
  const range = forestRange(contrasts);
  const x = (v: number): number => labelW + ((v + range) / (2 * range)) * plotW;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="forest" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<line x1="${x(0)}" y1="${top - 10}" x2="${x(0)}" y2="${height - 25}" stroke="#888" stroke-dasharray="3,3"/>`,
  ];
  contrasts.forEach((c, i) => {
    const y = top + i * row + row / 2;
    parts.push(`<text x="4" y="${y + 4}">${escapeXml(contrastLabel(c))}</text>`);
    if (isNum(c.ci[0]) && isNum(c.ci[1])) {
      parts.push(
        `<line x1="${x(c.ci[0]).toFixed(1)}" y1="${y}" x2="${x(c.ci[1]).toFixed(1)}" y2="${y}" stroke="#333" stroke-width="2"/>`,
      );
    }
    if (isNum(c.delta)) {
      parts.push(`<circle cx="${x(c.delta).toFixed(1)}" cy="${y}" r="5" fill="#c0392b"/>`);
    }
    const stats = `Δ ${fmtDelta(c.delta)} ${fmtCi(c.ci)} p=${fmtP(c.p)} n=${c.nTasks}`;
    parts.push(`<text x="${labelW + plotW + 10}" y="${y + 4}">${escapeXml(stats)}</text>`);
  });
  const axisY = height - 12;
  for (const v of [-range, 0, range]) {
    parts.push(
      `<text x="${x(v)}" y="${axisY}" text-anchor="middle">${v > 0 ? "+" : ""}${v}</text>`,
    );
  }
  parts.push("</svg>");
  return parts.join("\n");
}
