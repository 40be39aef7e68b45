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

/**
 * Average-linkage agglomerative clustering: repeatedly merges the most similar pair
 * while its similarity is at least `threshold`. `weights` counts duplicates folded
 * into one item. Ties break on the lowest indices, so the result is deterministic.
 * Returns groups of item indices, each sorted, groups ordered by first index.
 */
export function agglomerate(
  vectors: readonly SparseVector[],
  threshold: number,
  weights?: readonly number[],
): number[][] {
  const n = vectors.length;
  const groups: (number[] | null)[] = vectors.map((_, i) => [i]);
  const size = vectors.map((_, i) => weights?.[i] ?? 1);
  const sim: number[][] = vectors.map((a, i) =>
    vectors.map((b, j) => (i === j ? -1 : cosine(a, b))),
  );
  for (;;) {
    let best = -1;
    let bi = -1;
    let bj = -1;
    for (let i = 0; i < n; i++) {
      if (!groups[i]) continue;
      const row = sim[i] as number[];
      for (let j = i + 1; j < n; j++) {
        if (!groups[j]) continue;
        const s = row[j] as number;
        if (s > best + 1e-12) {
          best = s;
          bi = i;
          bj = j;
        }
      }
    }
    if (bi < 0 || best < threshold - 1e-12) break;
    const gi = groups[bi] as number[];
    const gj = groups[bj] as number[];
    const si = size[bi] as number;
    const sj = size[bj] as number;
    for (let k = 0; k < n; k++) {
      if (!groups[k] || k === bi || k === bj) continue;
      const v = ((sim[bi]?.[k] as number) * si + (sim[bj]?.[k] as number) * sj) / (si + sj);
      (sim[bi] as number[])[k] = v;
      (sim[k] as number[])[bi] = v;
    }
    groups[bi] = [...gi, ...gj].sort((x, y) => x - y);
    groups[bj] = null;
    size[bi] = si + sj;
  }
  return groups
    .filter((g): g is number[] => g !== null)
    .sort((x, y) => (x[0] as number) - (y[0] as number));
}
