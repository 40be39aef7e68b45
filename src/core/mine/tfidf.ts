/** Sparse vector: term → weight, L2-normalised. */
export type SparseVector = Map<string, number>;

const STOP = new Set(
  "a an the of and or to in on at by for with from after before without not no any its it is was be as that this".split(
    " ",
  ),
);

/** Lower-case word tokens of free text, stop words dropped. */
export function words(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9][a-z0-9-]*/g) ?? []).filter(
    (w) => !STOP.has(w) && w.length > 1,
  );
}

/** TF-IDF vectors (smoothed idf, L2-normalised) for token lists; deterministic. */
export function tfidf(docs: readonly string[][]): SparseVector[] {
  const df = new Map<string, number>();
  for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1);
  const n = docs.length;
  return docs.map((d) => {
    const tf = new Map<string, number>();
    for (const t of d) tf.set(t, (tf.get(t) ?? 0) + 1);
    const v: SparseVector = new Map();
    let norm = 0;
    for (const [t, c] of [...tf.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const w = c * (Math.log((1 + n) / (1 + (df.get(t) ?? 0))) + 1);
      v.set(t, w);
      norm += w * w;
    }
    norm = Math.sqrt(norm) || 1;
    for (const [t, w] of v) v.set(t, w / norm);
    return v;
  });
}

/** Cosine of two L2-normalised sparse vectors. */
export function cosine(a: SparseVector, b: SparseVector): number {
  const [small, big] = a.size <= b.size ? [a, b] : [b, a];
  let s = 0;
  for (const [t, w] of small) s += w * (big.get(t) ?? 0);
  return s;
}

interface Best {
  j: number;
  s: number;
}

/**
 * Average-linkage agglomerative clustering: repeatedly merges the most similar pair
 * while its similarity is at least `threshold`. `weights` counts duplicates folded
 * into one item. Ties break on the lowest indices, so the result is deterministic.
 * Each row keeps its best partner (upper triangle), so a run costs about O(n²)
 * instead of O(n³). Returns groups of item indices, each sorted, ordered by first index.
 */
export function agglomerate(
  vectors: readonly SparseVector[],
  threshold: number,
  weights?: readonly number[],
): number[][] {
  const n = vectors.length;
  const alive: boolean[] = vectors.map(() => true);
  const groups: number[][] = vectors.map((_, i) => [i]);
  const size = vectors.map((_, i) => weights?.[i] ?? 1);
  const sim: Float64Array[] = vectors.map((a, i) => {
    const row = new Float64Array(n);
    for (let j = 0; j < n; j++) row[j] = i === j ? -1 : cosine(a, vectors[j] as SparseVector);
    return row;
  });
  const at = (i: number, j: number): number => (sim[i] as Float64Array)[j] as number;
  const rowBest = (i: number): Best => {
    let best: Best = { j: -1, s: Number.NEGATIVE_INFINITY };
    for (let j = i + 1; j < n; j++)
      if (alive[j] && at(i, j) > best.s + 1e-12) best = { j, s: at(i, j) };
    return best;
  };
  const best: Best[] = vectors.map((_, i) => rowBest(i));
  for (;;) {
    let bi = -1;
    for (let i = 0; i < n; i++) {
      const b = best[i] as Best;
      if (alive[i] && b.j >= 0 && (bi < 0 || b.s > (best[bi] as Best).s + 1e-12)) bi = i;
    }
    if (bi < 0 || (best[bi] as Best).s < threshold - 1e-12) break;
    const bj = (best[bi] as Best).j;
    const si = size[bi] as number;
    const sj = size[bj] as number;
    for (let k = 0; k < n; k++) {
      if (!alive[k] || k === bi || k === bj) continue;
      const v = (at(bi, k) * si + at(bj, k) * sj) / (si + sj);
      (sim[bi] as Float64Array)[k] = v;
      (sim[k] as Float64Array)[bi] = v;
    }
    groups[bi] = [...(groups[bi] as number[]), ...(groups[bj] as number[])].sort((x, y) => x - y);
    alive[bj] = false;
    size[bi] = si + sj;
    best[bi] = rowBest(bi);
    for (let k = 0; k < n; k++) {
      if (!alive[k] || k === bi) continue;
      const b = best[k] as Best;
      if (b.j === bi || b.j === bj) best[k] = rowBest(k);
      else if (k < bi) {
        const v = at(k, bi);
        if (v > b.s + 1e-12 || (Math.abs(v - b.s) <= 1e-12 && bi < b.j)) best[k] = { j: bi, s: v };
      }
    }
  }
  return groups.filter((_, i) => alive[i]).sort((x, y) => (x[0] as number) - (y[0] as number));
}
