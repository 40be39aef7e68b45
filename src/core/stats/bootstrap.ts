import { createRng } from "./prng.js";

export const DEFAULT_BOOTSTRAP_RESAMPLES = 10_000;

/** Type-7 (linear interpolation) quantile of sorted values. */
export function quantileSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (pos - lo);
}

/**
 * 95% (by default) percentile interval of the mean from task-level bootstrap:
 * resample the per-task differences with replacement, `resamples` times, seeded.
 */
export function bootstrapMeanInterval(
  values: readonly number[],
  opts: { resamples?: number; seed?: string | number; level?: number } = {},
): [number, number] {
  const n = values.length;
  if (n === 0) return [Number.NaN, Number.NaN];
  const resamples = opts.resamples ?? DEFAULT_BOOTSTRAP_RESAMPLES;
  const level = opts.level ?? 0.95;
  const rng = createRng(opts.seed ?? 1);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += values[rng.int(n)] as number;
    means[r] = s / n;
  }
  means.sort();
  const sorted = Array.from(means);
  const alpha = (1 - level) / 2;
  return [quantileSorted(sorted, alpha), quantileSorted(sorted, 1 - alpha)];
}
