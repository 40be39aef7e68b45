import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterLabels, reviewIds } from "../../../src/core/mine/cluster.js";
import type { DetectorHit } from "../../../src/core/mine/detectors/types.js";
import { isNamed, type Label } from "../../../src/core/mine/label.js";
import { mine } from "../../../src/core/mine/mine.js";
import { agglomerate, cosine, tfidf, words } from "../../../src/core/mine/tfidf.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { loadDemo, removeTempWorkspaces } from "./demo-workspace.js";

afterAll(removeTempWorkspaces);

let labels: Label[];
let attempts: Map<string, Attempt>;
let hits: Map<string, DetectorHit[]>;

beforeAll(async () => {
  const ws = await loadDemo();
  const r = await mine(ws.attempts, { labeler: "heuristic", config: ws.config });
  labels = r.labels;
  attempts = new Map(ws.attempts.map((a) => [a.id, a]));
  hits = r.hits;
});

describe("TF-IDF + agglomerative clustering", () => {
  it("cosine of identical token lists is 1, of disjoint ones 0", () => {
    const [a, b, c] = tfidf([
      words("server not detached at stop"),
      words("server not detached at stop"),
      ["unrelated", "tokens"],
    ]);
    expect(cosine(a as Map<string, number>, b as Map<string, number>)).toBeCloseTo(1, 10);
    expect(cosine(a as Map<string, number>, c as Map<string, number>)).toBe(0);
  });

  it("the threshold decides: 1.0 keeps distinct mechanisms apart, 0 merges everything", () => {
    const v = tfidf([["a", "b"], ["a", "c"], ["d"]]);
    expect(agglomerate(v, 1)).toEqual([[0], [1], [2]]);
    expect(agglomerate(v, 0)).toEqual([[0, 1, 2]]);
    expect(agglomerate(v, 0.2)).toEqual([[0, 1], [2]]);
  });

  it("clusters (ids and members) do not depend on the order labels arrive in", () => {
    const ref = clusterLabels({ labels, attempts, hits, threshold: 0.6 }).map((c) => [
      c.id,
      c.attemptIds,
    ]);
    fc.assert(
      fc.property(
        fc.shuffledSubarray(labels, { minLength: labels.length, maxLength: labels.length }),
        (shuffled) => {
          const got = clusterLabels({ labels: shuffled, attempts, hits, threshold: 0.6 }).map(
            (c) => [c.id, c.attemptIds],
          );
          expect(got).toEqual(ref);
        },
      ),
      { numRuns: 20, seed: 7 },
    );
  });

  it("only named labels are clustered; a stricter threshold never makes fewer clusters", () => {
    const at = (t: number) => clusterLabels({ labels, attempts, hits, threshold: t });
    const members = at(0.6).flatMap((c) => c.attemptIds);
    expect(members.sort()).toEqual(
      labels
        .filter(isNamed)
        .map((l) => l.attemptId)
        .sort(),
    );
    // what is kept for review is in no cluster
    const review = reviewIds(labels);
    expect(review.length).toBeGreaterThan(0);
    expect(members.some((id) => review.includes(id))).toBe(false);
    expect(at(0.95).length).toBeGreaterThanOrEqual(at(0.6).length);
    expect(at(0.01).length).toBeLessThanOrEqual(at(0.6).length);
  });
});

/** The textbook O(n³) average-linkage loop, as a reference for the row-best version. */
function naive(vectors: Map<string, number>[], threshold: number): number[][] {
  const n = vectors.length;
  const groups: (number[] | null)[] = vectors.map((_, i) => [i]);
  const avg = (a: number[], b: number[]) => {
    let s = 0;
    for (const x of a)
      for (const y of b)
        s += cosine(vectors[x] as Map<string, number>, vectors[y] as Map<string, number>);
    return s / (a.length * b.length);
  };
  for (;;) {
    let best = -Infinity;
    let pair: [number, number] | null = null;
    for (let i = 0; i < n; i++)
      for (let j = i + 1; j < n; j++) {
        const gi = groups[i];
        const gj = groups[j];
        if (!gi || !gj) continue;
        const s = avg(gi, gj);
        if (s > best + 1e-12) {
          best = s;
          pair = [i, j];
        }
      }
    if (!pair || best < threshold - 1e-12) break;
    const [i, j] = pair;
    groups[i] = [...(groups[i] ?? []), ...(groups[j] ?? [])].sort((x, y) => x - y);
    groups[j] = null;
  }
  return groups
    .filter((g): g is number[] => g !== null)
    .sort((x, y) => (x[0] as number) - (y[0] as number));
}

describe("agglomerate equals the naive average-linkage reference", () => {
  it("on random token documents and thresholds", () => {
    const doc = fc.array(
      fc.constantFrom("server", "detached", "probe", "diff", "log", "stop", "tool", "copy"),
      { minLength: 1, maxLength: 5 },
    );
    fc.assert(
      fc.property(
        fc.array(doc, { minLength: 1, maxLength: 12 }),
        fc.double({ min: 0.05, max: 0.95, noNaN: true }),
        (docs, t) => {
          const v = tfidf(docs);
          expect(agglomerate(v, t)).toEqual(naive(v, t));
        },
      ),
      { numRuns: 200, seed: 11 },
    );
  });
});
