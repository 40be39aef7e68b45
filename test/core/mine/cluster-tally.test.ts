import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeCluster } from "../../../src/core/mine/cluster.js";
import { tallyOf } from "../../../src/core/mine/cluster-tally.js";
import { mergedInSummary } from "../../../src/core/mine/clusters-summary.js";
import type { DetectorHit } from "../../../src/core/mine/detectors/types.js";
import type { Label } from "../../../src/core/mine/label.js";
import { mine } from "../../../src/core/mine/mine.js";
import type { MineSummary } from "../../../src/core/mine/render.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { loadDemo, removeTempWorkspaces } from "./demo-workspace.js";

afterAll(removeTempWorkspaces);

let labels: Label[];
let input: { attempts: Map<string, Attempt>; hits: Map<string, DetectorHit[]> };

beforeAll(async () => {
  const ws = await loadDemo();
  const r = await mine(ws.attempts, { labeler: "heuristic", config: ws.config });
  labels = r.labels.filter((l) => l.kind !== undefined);
  input = { attempts: new Map(ws.attempts.map((a) => [a.id, a])), hits: r.hits };
});

/** The demo's labels, each with some of its counted fields swapped for others' (ties, mixes). */
const varied = fc
  .array(
    fc.record({
      keep: fc.boolean(),
      from: fc.nat(),
      confidence: fc.constantFrom(0.4, 0.6, 0.65, 0.7, 0.75, 0.8, 0.9, 0.73),
    }),
    { minLength: 1, maxLength: 60 },
  )
  .map((picks) =>
    picks.flatMap((p, i) => {
      const l = labels[i % labels.length];
      const o = labels[p.from % labels.length];
      if (!l || !o || i >= labels.length) return [];
      if (p.keep) return [l];
      const { family, mechanismId, signature, ...rest } = l;
      return [
        {
          ...rest,
          mechanism: o.mechanism,
          interventionPoint: o.interventionPoint,
          confidence: p.confidence,
          ...(o.family ? { family: o.family } : {}),
          ...(o.mechanismId ? { mechanismId: o.mechanismId } : {}),
          ...(o.signature ? { signature: o.signature } : {}),
        } as Label,
      ];
    }),
  );

describe("a cluster's description from its tally", () => {
  it("is the same whatever order the members come in", () => {
    fc.assert(
      fc.property(
        varied.chain((m) =>
          fc.tuple(
            fc.constant(m),
            fc.shuffledSubarray(m, { minLength: m.length, maxLength: m.length }),
          ),
        ),
        ([members, shuffled]) => {
          expect(describeCluster(shuffled, input)).toEqual(describeCluster(members, input));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("of a union of clusters is the union's own description (a merge needs no label)", () => {
    fc.assert(
      fc.property(
        varied,
        fc.array(fc.nat({ max: 3 }), { minLength: 60, maxLength: 60 }),
        fc.option(fc.constantFrom("merged by hand"), { nil: undefined }),
        fc.boolean(),
        (members, parts, name, firstNamed) => {
          const groups = [0, 1, 2, 3]
            .map((k) => members.filter((_, i) => parts[i] === k))
            .filter((g) => g.length > 0);
          fc.pre(groups.length >= 2);
          const clusters = groups.map((g, i) =>
            describeCluster(g, input, i === 0 && firstNamed ? "first" : undefined),
          );
          const summary = {
            clusters,
            tallies: Object.fromEntries(clusters.map((c, i) => [c.id, tallyOf(groups[i]!)])),
          } as unknown as MineSummary;
          const union = groups.flat();
          const want = describeCluster(union, input, name ?? (firstNamed ? "first" : undefined));
          const got = mergedInSummary(summary, clusters, name);
          expect(JSON.stringify(got?.merged)).toBe(JSON.stringify(want));
          expect(got?.summary.tallies[want.id]).toEqual(tallyOf(union));
        },
      ),
      { numRuns: 80 },
    );
  });
});
