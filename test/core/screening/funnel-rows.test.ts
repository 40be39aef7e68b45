import { describe, expect, it } from "vitest";
import { funnelRows } from "../../../src/core/screening/results/funnel-rows.js";
import { type ScreenRow, toObservations } from "../../../src/core/screening/results/row.js";
import { analyzeScreen } from "../../../src/core/stats/analyze.js";

const row = (arm: string, i: number, extra: Partial<ScreenRow>): ScreenRow => ({
  task: `t${i % 3}`,
  arm,
  attempt: i,
  pass: i % 2 === 0,
  ...extra,
});

describe("funnel rows", () => {
  it("count what the report's funnel counts, with the attempts behind each row", () => {
    const rows: ScreenRow[] = [
      ...Array.from({ length: 6 }, (_v, i) => row("baseline", i, { attemptId: `b${i}` })),
      ...Array.from({ length: 6 }, (_v, i) =>
        row("policy", i, { fired: i < 4, ...(i === 5 ? {} : { attemptId: `p${i}` }) }),
      ),
      row("policy", 9, { unscorable: "provider failure", attemptId: "px" }),
    ];
    const out = funnelRows(rows);
    const analysis = analyzeScreen(toObservations(rows));
    for (const r of out) {
      const f = analysis.funnel[r.arm]!;
      expect(r.count).toBe(r.stage === "attempts" ? f.attempts : f.stages[r.stage]);
      expect(r.attemptIds.length + r.unnamed).toBe(r.count);
    }
    const fired = out.find((r) => r.arm === "policy" && r.stage === "fired")!;
    expect(fired.attemptIds).toEqual(["p0", "p1", "p2", "p3"]);
    // fired, then passed: attempts 0 and 2 of those
    expect(out.find((r) => r.arm === "policy" && r.stage === "pass")!.attemptIds).toEqual([
      "p0",
      "p2",
    ]);
    // no fired column on the baseline rows, so no fired stage there; the unscorable row is out
    expect(out.filter((r) => r.arm === "baseline").map((r) => r.stage)).toEqual([
      "attempts",
      "pass",
    ]);
    const attempts = out.find((r) => r.arm === "policy" && r.stage === "attempts")!;
    expect(attempts).toMatchObject({ count: 6, unnamed: 1 });
    expect(attempts.attemptIds).not.toContain("px");
  });
});
