import { createRng } from "./prng.js";

/** Up to this many non-zero differences the sign-flip test enumerates every pattern. */
export const EXACT_SIGN_FLIP_MAX = 20;
export const DEFAULT_RANDOM_FLIPS = 100_000;

export interface SignFlipResult {
  p: number;
  method: "exact" | "random";
  /** Tasks whose difference is non-zero (zeros do not change any flipped sum). */
  nonZero: number;
  /** Patterns enumerated (exact) or drawn (random). */
  draws: number;
}

/** Tolerance for "at least as extreme": differences are ratios of small integers. */
const EPS = 1e-9;

/**
 * Two-sided paired sign-flip permutation test of mean difference = 0. Exact when at
 * most 20 differences are non-zero (p = share of the 2^m patterns whose |sum| ≥ the
 * observed |sum|); else `flips` random patterns, seeded, p = (1 + hits) / (1 + flips).
 * p is always in (0, 1].
 */
export function signFlipTest(
  diffs: readonly number[],
  opts: { flips?: number; seed?: string | number; exactMax?: number } = {},
): SignFlipResult {
  const d = diffs.filter((x) => Math.abs(x) > EPS);
  const m = d.length;
  if (m === 0) return { p: 1, method: "exact", nonZero: 0, draws: 1 };
  const observed = Math.abs(d.reduce((s, x) => s + x, 0));
  const exactMax = opts.exactMax ?? EXACT_SIGN_FLIP_MAX;
  if (m <= exactMax) {
    const total = 2 ** m;
    let hits = 0;
    for (let mask = 0; mask < total; mask++) {
      let s = 0;
      for (let i = 0; i < m; i++) s += mask & (1 << i) ? -(d[i] as number) : (d[i] as number);
      if (Math.abs(s) >= observed - EPS) hits++;
    }
    return { p: hits / total, method: "exact", nonZero: m, draws: total };
  }
  const flips = opts.flips ?? DEFAULT_RANDOM_FLIPS;
  const rng = createRng(opts.seed ?? 1);
  let hits = 0;
  for (let r = 0; r < flips; r++) {
    let s = 0;
    for (let i = 0; i < m; i++) s += rng.next() < 0.5 ? -(d[i] as number) : (d[i] as number);
    if (Math.abs(s) >= observed - EPS) hits++;
  }
  return { p: (1 + hits) / (1 + flips), method: "random", nonZero: m, draws: flips };
}
