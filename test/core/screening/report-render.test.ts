import { describe, expect, it } from "vitest";
import {
  renderForestSvg,
  renderForestText,
  renderReportHtml,
  renderReportMarkdown,
  renderReportText,
  toReportJson,
} from "../../../src/core/report/index.js";
import { analyzeScreen, type Contrast } from "../../../src/core/stats/index.js";
import { expand, LUNA, SOL } from "../stats/table9.js";

const contrastOf = (delta: number, ci: [number, number], p: number, n: number): Contrast => ({
  arm: "policy",
  comparator: "baseline",
  cohort: "all",
  nTasks: n,
  delta,
  ci,
  p,
  test: "exact",
  unpaired: [],
  tasks: [],
});

describe("forest plot", () => {
  it("draws the interval, the estimate and zero on a shared scale, with the numbers beside", () => {
    const lines = renderForestText(
      [contrastOf(0.5, [0, 1], 0.0625, 7), contrastOf(-0.25, [-0.5, 0], 0.5, 4)],
      21,
    );
    // scale ±1 over 21 columns: 0 → col 10, 0.5 → col 15, 1 → col 20
    const lw = "policy − baseline (all)".length;
    const row = (lines[0] as string).slice(lw + 2, lw + 2 + 21);
    expect(row.indexOf("●")).toBe(15);
    expect(row[10]).toBe("┼");
    expect(row.slice(11, 15)).toBe("────");
    expect(lines[0]).toContain("Δ +0.500 [+0.000, +1.000] p=0.0625 n=7");
    expect(lines[1]).toContain("Δ −0.250 [−0.500, +0.000] p=0.5 n=4");
    expect(lines[2]).toContain("-1");
    expect(lines[2]).toContain("+1");
  });

  it("renders an SVG with one estimate per contrast and escaped labels", () => {
    const svg = renderForestSvg([{ ...contrastOf(0.5, [0, 1], 0.0625, 7), arm: "a<b" }]);
    expect(svg.match(/<circle /g)).toHaveLength(1);
    expect(svg).toContain("a&lt;b − baseline (all)");
    // labelW 260 + (0.5 + 1) / 2 × 320
    expect(svg).toContain('cx="500.0"');
  });
});

describe("report renderers", () => {
  const a = analyzeScreen(expand(LUNA));
  it("text and Markdown name Δ, CI, p and the number of tasks together", () => {
    const text = renderReportText("luna", a);
    expect(text).toMatch(
      /policy\s+baseline\s+all\s+7\s+\+0\.381\s+\[\+\d\.\d{3}, \+\d\.\d{3}\]\s+0\.125\s+exact/,
    );
    expect(text).toContain("Per-task movement: policy vs baseline");
    const md = renderReportMarkdown("luna", a);
    expect(md).toContain("| t4 | all | 0/3 | 2/3 | +0.667 | fail→pass |");
    expect(md).toContain(
      "## Transitions: baseline successes (rows) × policy successes (columns), tasks",
    );
  });

  it("HTML is one self-contained page with the SVG forest plot", () => {
    const html = renderReportHtml("luna", a);
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).toContain("<svg");
    expect(html).toContain("<td>0.125</td>");
  });

  it("JSON has the documented keys, per-task movement, and no NaN", () => {
    const json = toReportJson("sol", analyzeScreen(expand(SOL)));
    expect(Object.keys(json)).toEqual(
      expect.arrayContaining([
        "arms",
        "contrasts",
        "funnel",
        "transitions",
        "movement",
        "verdicts",
      ]),
    );
    expect(json.contrasts[0]).toMatchObject({
      arm: "policy",
      comparator: "baseline",
      cohort: "all",
      nTasks: 7,
      p: 0.0625,
    });
    expect(json.movement.policy?.filter((t) => t.failToPass).map((t) => t.task)).toEqual([
      "t1",
      "t3",
      "t4",
      "t5",
    ]);
    expect(JSON.stringify(json)).not.toContain("NaN");
  });
});

describe("reports carry no raw HTML and no secrets", () => {
  it("escapes HTML in Markdown and redacts secrets in every format", () => {
    const a = analyzeScreen(expand(LUNA));
    const screen = '<img src=x onerror="alert(1)"> DB_PASSWORD=hunter2-Sup3r';
    const md = renderReportMarkdown(screen, a);
    expect(md).not.toContain("<img");
    expect(md).toContain("&lt;img");
    for (const out of [
      md,
      renderReportText(screen, a),
      renderReportHtml(screen, a),
      JSON.stringify(toReportJson(screen, a)),
    ]) {
      expect(out).not.toContain("hunter2-Sup3r");
      expect(out).toContain("[REDACTED:assigned-secret]");
    }
  });
});
