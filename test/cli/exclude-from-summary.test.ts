import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseDecisions } from "../../src/core/mine/decisions.js";
import { decisionsText } from "../../src/core/mine/decisions-log.js";
import { workspacePaths } from "../../src/core/workspace/paths.js";
import { DEMO_DIR, removeTempWorkspaces, tempWorkspace } from "../core/mine/demo-workspace.js";
import {
  both,
  decisionsOf,
  fire,
  keptIsRecomputed,
  pair as pairOf,
  RECORDED,
  summaryNow,
} from "../helpers/kept-summary.js";

afterAll(removeTempWorkspaces);

/** Two workspaces of the demo traces, mined alike: one takes the fast path, one the full. */
const pair = () => pairOf(() => tempWorkspace(`${DEMO_DIR}/`));

describe("fire cluster exclude against the kept clusters summary (demo traces)", () => {
  it("records and prints what the full path does, and keeps the summary computed again", async () => {
    const w = await pair();
    const first = JSON.parse((await fire("clusters", "--json", "-w", w.fast)).stdout) as {
      clusters: { id: string; name: string; attemptIds: string[] }[];
    };
    expect(first.clusters.length).toBeGreaterThan(4);
    const [c1, c2, c3, c4] = first.clusters as [
      (typeof first.clusters)[0],
      (typeof first.clusters)[0],
      (typeof first.clusters)[0],
      (typeof first.clusters)[0],
    ];

    // the first exclude (none before): fast, the same text and file as the full path
    expect(await summaryNow(w.fast)).toBeDefined();
    let r = await both(w, "cluster", "exclude", c1.id, "--reason", "out of scope");
    expect(r.fast).toBe(r.full);
    expect(r.fast).toMatch(new RegExp(`^excluded cluster ${c1.id}: out of scope\\n`));
    expect(r.fast).toContain(`${c1.id}  ${c1.name}`); // the cluster, as rendered
    expect(decisionsOf(w.fast)).toBe(decisionsOf(w.full));
    await keptIsRecomputed(w.fast);
    expect((await both(w, "clusters")).fast).toBe((await both(w, "clusters")).full);

    // by name and --json, after a rename: the same again
    expect((await fire("cluster", "rename", c2.id, "renamed", "-w", w.fast)).status).toBe(0);
    expect((await fire("cluster", "rename", c2.id, "renamed", "-w", w.full)).status).toBe(0);
    await fire("clusters", "-w", w.fast);
    r = await both(w, "cluster", "exclude", "renamed", "--reason", "second", "--json");
    expect(r.fast).toBe(r.full);
    expect(JSON.parse(r.fast)).toEqual({
      ok: true,
      message: `excluded cluster ${c2.id}: second`,
      decision: { op: "exclude", attemptIds: c2.attemptIds, reason: "second", at: "T" },
    });
    expect(await summaryNow(w.fast)).toBeDefined(); // taken fast: the summary followed
    await keptIsRecomputed(w.fast);

    // one attempt by its id: the full path in both (it excludes that attempt alone)
    const one = c3.attemptIds[0]!;
    r = await both(w, "cluster", "exclude", one, "--reason", "just this one");
    expect(r.fast).toBe(r.full);
    expect(r.fast).toBe(`excluded ${one}: just this one\n${RECORDED}`);
    expect(await summaryNow(w.fast)).toBeUndefined();
    expect((await both(w, "clusters")).fast).toBe((await both(w, "clusters")).full);
    expect(await summaryNow(w.fast)).toBeDefined();

    // a split that named a member (it may have moved an attempt its label excludes): full path
    const labelled = JSON.parse((await fire("triage", "--json", "-w", w.fast)).stdout) as {
      exclusions: { attemptId: string; source: string }[];
    };
    const gap = labelled.exclusions.find((e) => e.source === "labeller")!.attemptId;
    for (const dir of [w.fast, w.full]) {
      const file = workspacePaths(dir).decisions;
      const cur = parseDecisions(readFileSync(file, "utf8"), file);
      cur.decisions.push({ op: "split", attemptIds: [gap], name: "moved by hand" });
      writeFileSync(file, decisionsText(cur));
    }
    await fire("clusters", "-w", w.fast);
    expect(await summaryNow(w.fast)).toBeDefined();
    r = await both(w, "cluster", "exclude", "moved by hand", "--reason", "third");
    expect(r.fast).toBe(r.full);
    const taken = await summaryNow(w.fast);
    const shown = await both(w, "clusters");
    expect(shown.fast).toBe(shown.full);
    expect(shown.fast).toContain("2 by the labeller"); // the moved attempt is the user's now
    expect(taken).toBeUndefined(); // not taken

    // a later exclude with no summary kept: the full path computes it, then follows it (the
    // next decision finds it current); the workspaces agree on everything
    rmSync(workspacePaths(w.fast).clustersSummary);
    expect(await summaryNow(w.fast)).toBeUndefined();
    r = await both(w, "cluster", "exclude", c4.id.slice(0, 6), "--reason", "fourth");
    expect(r.fast).toBe(r.full);
    expect(await summaryNow(w.fast)).toBeDefined();
    await keptIsRecomputed(w.fast);
    expect(decisionsOf(w.fast)).toBe(decisionsOf(w.full));
    const json = await both(w, "clusters", "--json");
    expect(json.fast).toBe(json.full);

    // errors as before: a reference to no cluster, a reason the schema refuses
    r = await both(w, "cluster", "exclude", "c-nope", "--reason", "x");
    expect(r.fast).toBe(r.full);
    expect(r.fast).toMatch(/no cluster matches c-nope/);
    const c5 = (await summaryNow(w.fast))!.clusters[0]!;
    r = await both(w, "cluster", "exclude", c5.id, "--reason", "x".repeat(501));
    expect(r.fast).toBe(r.full);
    expect(r.fast).not.toMatch(/^excluded/);
  });

  it("an attempt id that is also a cluster's name excludes that attempt alone, either path", async () => {
    const w = await pair();
    const [c1, c2] = (await summaryNow(w.fast))!.clusters as [
      { id: string; attemptIds: string[] },
      { id: string; attemptIds: string[] },
    ];
    const id = c1.attemptIds[0]!;
    let r = await both(w, "cluster", "rename", c2.id, id);
    expect(r.fast).toBe(r.full);
    expect(await summaryNow(w.fast)).toBeDefined();
    r = await both(w, "cluster", "exclude", id, "--reason", "the attempt");
    expect(r.fast).toBe(r.full);
    expect(r.fast).toBe(`excluded ${id}: the attempt\n${RECORDED}`);
    expect(decisionsOf(w.fast)).toBe(decisionsOf(w.full));
    // the cluster named like it is still there, the attempt out of its own
    expect(await summaryNow(w.fast)).toBeUndefined(); // the full path: an attempt alone
    await fire("clusters", "-w", w.fast);
    const shown = (await summaryNow(w.fast))!;
    expect(shown.clusters.find((c) => c.id === c2.id)?.name).toBe(id);
    expect(shown.userExcluded).toEqual([{ attemptId: id, reason: "the attempt" }]);
  });

  it("leaves hand outcomes to the full path", async () => {
    const w = await pair();
    const c = (await summaryNow(w.fast))!.clusters[0]!;
    for (const dir of [w.fast, w.full]) {
      const file = workspacePaths(dir).handOutcomes;
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify({ version: 1, attempts: {} }));
    }
    await fire("clusters", "-w", w.fast);
    expect(await summaryNow(w.fast)).toBeDefined();
    const r = await both(w, "cluster", "exclude", c.id, "--reason", "by hand");
    expect(r.fast).toBe(r.full);
    expect(await summaryNow(w.fast)).toBeUndefined(); // not taken
  });
});
