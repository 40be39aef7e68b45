import { describe, expect, it } from "vitest";
import {
  analyzeScreen,
  bootstrapMeanInterval,
  contrast,
  signFlipTest,
} from "../../../src/core/stats/index.js";
import { expand, LUNA, SOL } from "./table9.js";

describe("Table 9 ground truth", () => {
  it("Sol: exact sign-flip p = 0.0625 over 7 tasks", () => {
    const obs = expand(SOL);
    const c = contrast(
      "policy",
      "baseline",
      "all",
      obs.filter((o) => o.arm === "policy"),
      obs.filter((o) => o.arm === "baseline"),
    );
    expect(c.nTasks).toBe(7);
    expect(c.test).toBe("exact");
    expect(c.p).toBeCloseTo(0.0625, 12);
    // (1/3 + 2/3 + 1 + 1 + 1 + 0 + 0) / 7 = 4/7
    expect(c.delta).toBeCloseTo(4 / 7, 12);
    expect(c.ci[0]).toBeGreaterThan(0);
    expect(c.ci[0]).toBeLessThanOrEqual(c.delta);
    expect(c.ci[1]).toBeGreaterThanOrEqual(c.delta);
    expect(c.tasks.filter((t) => t.passToFail)).toHaveLength(0);
  });

  it("Luna: exact sign-flip p = 0.125 over 7 tasks", () => {
    const a = analyzeScreen(expand(LUNA));
    const c = a.contrasts.find((x) => x.arm === "policy" && x.comparator === "baseline");
    expect(c?.p).toBeCloseTo(0.125, 12);
    // (1 + 0 + 1/3 + 2/3 + 2/3) / 7 = (8/3) / 7
    expect(c?.delta).toBeCloseTo(8 / 21, 12);
    expect(c?.nTasks).toBe(7);
  });

  it("transition table of Sol counts tasks by baseline × policy successes", () => {
    const a = analyzeScreen(expand(SOL));
    const t = a.transitions.policy;
    expect(t?.k).toBe(3);
    expect(t?.counts).toEqual([
      [0, 1, 0, 3],
      [0, 0, 0, 1],
      [0, 0, 0, 0],
      [0, 0, 0, 2],
    ]);
    expect(t?.failToPass).toEqual(["t1", "t3", "t4", "t5"]);
    expect(t?.passToFail).toEqual([]);
  });
});

describe("sign-flip test", () => {
  it("gives p = 1 when every difference is zero", () => {
    expect(signFlipTest([0, 0, 0]).p).toBe(1);
  });
  it("counts ties with the observed |sum| as extreme (two-sided)", () => {
    // diffs 1, -1: patterns sums 0, 2, -2, 0 → |sum| ≥ 0 for all → p = 1
    expect(signFlipTest([1, -1]).p).toBe(1);
    // a single non-zero difference: both patterns as extreme → p = 1
    expect(signFlipTest([0.5]).p).toBe(1);
    // six positive: 2 / 64
    expect(signFlipTest([1, 1, 1, 1, 1, 1]).p).toBeCloseTo(2 / 64, 12);
  });
  it("switches to 100,000 seeded random flips above 20 non-zero differences", () => {
    const diffs = Array.from({ length: 25 }, (_, i) => (i % 5 === 0 ? -0.5 : 1));
    const r1 = signFlipTest(diffs, { seed: 9 });
    const r2 = signFlipTest(diffs, { seed: 9 });
    expect(r1.method).toBe("random");
    expect(r1.draws).toBe(100_000);
    expect(r1.p).toBe(r2.p);
    expect(r1.p).toBeGreaterThan(0);
    expect(r1.p).toBeLessThan(0.01);
  });
  it("random flips agree with exact enumeration on the same data", () => {
    const diffs = [1, 2 / 3, 1 / 3, 1, -1 / 3, 1, 2 / 3, -1, 1, 1 / 3];
    const exact = signFlipTest(diffs);
    const random = signFlipTest(diffs, { exactMax: 0, flips: 50_000, seed: 3 });
    expect(exact.method).toBe("exact");
    expect(random.method).toBe("random");
    expect(Math.abs(exact.p - random.p)).toBeLessThan(0.01);
  });
});

describe("bootstrap interval", () => {
  it("is reproducible from the seed and changes with it", () => {
    const v = [0.2, -0.1, 0.5, 0.3, 0, 1];
    expect(bootstrapMeanInterval(v, { seed: 4 })).toEqual(bootstrapMeanInterval(v, { seed: 4 }));
    const few = { resamples: 40 };
    expect(bootstrapMeanInterval(v, { ...few, seed: 4 })).not.toEqual(
      bootstrapMeanInterval(v, { ...few, seed: 5 }),
    );
  });
  it("collapses to the value when every task has the same difference", () => {
    expect(bootstrapMeanInterval([0.5, 0.5, 0.5])).toEqual([0.5, 0.5]);
  });
});
