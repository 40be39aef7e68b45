import type { Observation } from "../../../src/core/stats/index.js";

/** The paper's Table 9 (three attempts per task): baseline → policy successes per task. */
export const SOL: Array<[number, number]> = [
  [0, 1],
  [1, 3],
  [0, 3],
  [0, 3],
  [0, 3],
  [3, 3],
  [3, 3],
];
export const LUNA: Array<[number, number]> = [
  [0, 3],
  [3, 3],
  [2, 3],
  [0, 2],
  [0, 2],
  [3, 3],
  [3, 3],
];

/** Expands success counts into attempt-level observations (k attempts per task). */
export function expand(rows: Array<[number, number]>, k = 3, prefix = "t"): Observation[] {
  const out: Observation[] = [];
  rows.forEach(([base, pol], i) => {
    for (let a = 1; a <= k; a++) {
      out.push({ task: `${prefix}${i + 1}`, arm: "baseline", attempt: a, pass: a <= base });
      out.push({ task: `${prefix}${i + 1}`, arm: "policy", attempt: a, pass: a <= pol });
    }
  });
  return out;
}
