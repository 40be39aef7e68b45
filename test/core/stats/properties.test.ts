import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { contrast, type Observation } from "../../../src/core/stats/index.js";

/** Tasks with k attempts under two arms, as success counts. */
const screenArb = fc.integer({ min: 1, max: 4 }).chain((k) =>
  fc
    .array(fc.tuple(fc.integer({ min: 0, max: k }), fc.integer({ min: 0, max: k })), {
      minLength: 1,
      maxLength: 12,
    })
    .map((rows) => ({ k, rows })),
);

function toObs(k: number, rows: Array<[number, number]>): [Observation[], Observation[]] {
  const a: Observation[] = [];
  const b: Observation[] = [];
  rows.forEach(([x, y], i) => {
    for (let j = 1; j <= k; j++) {
      a.push({ task: `t${i}`, arm: "A", attempt: j, pass: j <= x });
      b.push({ task: `t${i}`, arm: "B", attempt: j, pass: j <= y });
    }
  });
  return [a, b];
}

const fast = { resamples: 500, flips: 2000 };

describe("contrast invariants", () => {
  it("the interval contains the estimate and p ∈ (0, 1]", () => {
    fc.assert(
      fc.property(screenArb, fc.integer(), ({ k, rows }, seed) => {
        const [a, b] = toObs(k, rows);
        const c = contrast("A", "B", "all", a, b, { ...fast, seed });
        expect(c.ci[0]).toBeLessThanOrEqual(c.delta + 1e-12);
        expect(c.ci[1]).toBeGreaterThanOrEqual(c.delta - 1e-12);
        expect(c.p).toBeGreaterThan(0);
        expect(c.p).toBeLessThanOrEqual(1);
      }),
      { numRuns: 150 },
    );
  });

  it("swapping arms negates the effect and its interval, and keeps p", () => {
    fc.assert(
      fc.property(screenArb, ({ k, rows }) => {
        const [a, b] = toObs(k, rows);
        const ab = contrast("A", "B", "all", a, b, fast);
        const ba = contrast("B", "A", "all", b, a, fast);
        expect(ba.delta).toBeCloseTo(-ab.delta, 12);
        expect(ba.p).toBeCloseTo(ab.p, 12);
        for (const t of ab.tasks) {
          const u = ba.tasks.find((x) => x.task === t.task);
          expect(u?.diff).toBeCloseTo(-t.diff, 12);
          expect(u?.passToFail).toBe(t.failToPass);
        }
      }),
      { numRuns: 150 },
    );
  });
});
