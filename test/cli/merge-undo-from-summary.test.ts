import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
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
  type Pair,
  pair,
  RECORDED,
  summaryNow,
} from "../helpers/kept-summary.js";
import { fixture } from "../helpers/paths.js";

afterAll(removeTempWorkspaces);

/** A workspace of its own copy of the 15 real Harbor OpenClaw trials. */
function openclaw(): string {
  const dir = tempWorkspace("traces/");
  cpSync(fixture("harbor-openclaw"), join(dir, "traces"), { recursive: true });
  return dir;
}

const demo = () => tempWorkspace(`${DEMO_DIR}/`);

/** Both workspaces agree on the decisions and on `fire clusters` (text and JSON). */
async function agree(w: Pair) {
  expect(decisionsOf(w.fast)).toBe(decisionsOf(w.full));
  const text = await both(w, "clusters");
  expect(text.fast).toBe(text.full);
  const json = await both(w, "clusters", "--json");
  expect(json.fast).toBe(json.full);
}

type Shown = { id: string; name: string; attemptIds: string[] };
const attempts = (c: Shown) =>
  `${c.attemptIds.length} attempt${c.attemptIds.length === 1 ? "" : "s"}`;
const listed = async (dir: string) =>
  (JSON.parse((await fire("clusters", "--json", "-w", dir)).stdout) as { clusters: Shown[] })
    .clusters;

describe("fire cluster merge and undo against the kept clusters summary (real Harbor trials)", () => {
  it("merge and undo print and record what the full path does; the summary follows", async () => {
    const w = await pair(openclaw);
    const [c1, c2, c3] = (await listed(w.fast)) as [Shown, Shown, Shown];
    expect(c3).toBeDefined();

    let r = await both(w, "cluster", "merge", c1.id, c2.id);
    expect(r.fast).toBe(r.full);
    expect(r.fast).toBe(`merged ${c1.id} + ${c2.id}\n${RECORDED}`);
    expect(await summaryNow(w.fast)).toBeDefined(); // taken fast: the summary followed
    await keptIsRecomputed(w.fast);
    await agree(w);

    // the merged cluster with the third, under a name: JSON as the full path prints it
    const merged = (await listed(w.fast)).find((c) => c.attemptIds.includes(c1.attemptIds[0]!))!;
    r = await both(w, "cluster", "merge", merged.id, c3.id.slice(0, 6), "--name", "all", "--json");
    expect(r.fast).toBe(r.full);
    expect(JSON.parse(r.fast)).toMatchObject({ decision: { op: "merge", name: "all" } });
    expect(await summaryNow(w.fast)).toBeDefined();
    await keptIsRecomputed(w.fast);
    expect((await listed(w.fast)).map((c) => c.name)).toEqual(["all"]);
    await agree(w);

    // undo, twice: each from the summary set aside when the decision was made
    for (let i = 0; i < 2; i++) {
      r = await both(w, "cluster", "undo");
      expect(r.fast).toBe(r.full);
      expect(r.fast).toMatch(/^undid: merge 2 clusters \(\d+ attempts\)/);
      expect(await summaryNow(w.fast)).toBeDefined(); // taken fast: the summary followed
      await keptIsRecomputed(w.fast);
      await agree(w);
    }
    expect((await listed(w.fast)).map((c) => c.id)).toEqual([c1.id, c2.id, c3.id]);

    // an exclude undone: the cluster and the counts back as they were
    r = await both(w, "cluster", "exclude", c2.id, "--reason", "for a moment");
    expect(r.fast).toBe(r.full);
    r = await both(w, "cluster", "undo");
    expect(r.fast).toBe(r.full);
    expect(r.fast).toBe(`undid: exclude ${attempts(c2)}: for a moment\n`);
    expect(await summaryNow(w.fast)).toBeDefined();
    await keptIsRecomputed(w.fast);
    await agree(w);
    r = await both(w, "cluster", "undo", "--json");
    expect(r.fast).toBe(r.full);
    expect(JSON.parse(r.fast)).toEqual({
      ok: true,
      message: "no cluster decision to undo",
      undone: null,
    });
  });
});

describe("summaries set aside for an undo", () => {
  it("keeps the newest 16", async () => {
    const dir = openclaw();
    expect((await fire("mine", "--labeler", "heuristic", "-w", dir)).status).toBe(0);
    const [c1] = (await listed(dir)) as [Shown];
    for (let i = 0; i < 18; i++)
      expect((await fire("cluster", "rename", c1.id, `name ${i}`, "-w", dir)).status).toBe(0);
    const kept = readdirSync(workspacePaths(dir).clustersSummaries);
    expect(kept.filter((n) => n.endsWith(".json"))).toHaveLength(16);
    expect(kept.filter((n) => n.endsWith(".json.sha256"))).toHaveLength(16);
    expect((await fire("cluster", "undo", "-w", dir)).out).toBe(
      `undid: rename ${attempts(c1)} → “name 17”\n`,
    );
    expect(await summaryNow(dir)).toBeDefined();
    await keptIsRecomputed(dir);
  });
});

describe("fire cluster merge and undo against the kept clusters summary (demo traces)", () => {
  it("keeps the first cluster's own name, gives the same errors, and falls back", async () => {
    const w = await pair(demo);
    const [c1, c2, c3, c4, c5, c6] = (await listed(w.fast)) as Shown[] as [
      Shown,
      Shown,
      Shown,
      Shown,
      Shown,
      Shown,
    ];
    expect(c6).toBeDefined();

    // a renamed first cluster keeps its name through a merge without --name
    let r = await both(w, "cluster", "rename", c3.id, "named first");
    expect(r.fast).toBe(r.full);
    r = await both(w, "cluster", "merge", "named first", c1.id, c2.id);
    expect(r.fast).toBe(r.full);
    expect(await summaryNow(w.fast)).toBeDefined();
    await keptIsRecomputed(w.fast);
    expect((await listed(w.fast)).filter((c) => c.name === "named first")).toHaveLength(1);
    await agree(w);

    // errors as before: a reference to no cluster, one cluster twice, a name too long
    r = await both(w, "cluster", "merge", c4.id, "c-nope");
    expect(r.fast).toBe(r.full);
    expect(r.fast).toMatch(/no cluster matches c-nope/);
    r = await both(w, "cluster", "merge", c4.id, c4.id.slice(0, 8));
    expect(r.fast).toBe(r.full);
    expect(r.fast).toMatch(/merge needs two different clusters/);
    r = await both(w, "cluster", "merge", c4.id, c5.id, "--name", "x".repeat(201));
    expect(r.fast).toBe(r.full);
    expect(r.fast).not.toMatch(/^merged/);
    await agree(w);

    // a decision made by hand (a split): the summary is stale, so merge takes the full path,
    // which computes it, and then follows it (the next decision finds it current)
    for (const dir of [w.fast, w.full]) {
      const file = workspacePaths(dir).decisions;
      const cur = parseDecisions(readFileSync(file, "utf8"), file);
      cur.decisions.push({ op: "split", attemptIds: [c4.attemptIds[0]!], name: "by hand" });
      writeFileSync(file, decisionsText(cur));
    }
    r = await both(w, "cluster", "merge", c5.id, c6.id);
    expect(r.fast).toBe(r.full);
    expect(r.fast).toMatch(/^merged/);
    expect(await summaryNow(w.fast)).toBeDefined();
    await keptIsRecomputed(w.fast);
    await agree(w);

    // the summary deleted: the full path again, which computes and follows it
    rmSync(workspacePaths(w.fast).clustersSummary);
    const [d1, d2, d3] = (await listed(w.fast)).filter((c) => c.name !== "by hand") as [
      Shown,
      Shown,
      Shown,
    ];
    r = await both(w, "cluster", "merge", d1.id, d2.id);
    expect(r.fast).toMatch(/^merged/);
    expect(r.fast).toBe(r.full);
    expect(await summaryNow(w.fast)).toBeDefined();
    await keptIsRecomputed(w.fast);
    await agree(w);
    r = await both(w, "cluster", "merge", "by hand", d3.id, "--name", "last");
    expect(r.fast).toMatch(/^merged/);
    expect(r.fast).toBe(r.full);
    expect(await summaryNow(w.fast)).toBeDefined();
    await keptIsRecomputed(w.fast);
    await agree(w);

    // undo: from the summary that merge set aside
    r = await both(w, "cluster", "undo", "--json");
    expect(r.fast).toBe(r.full);
    expect(JSON.parse(r.fast)).toMatchObject({ undone: { op: "merge", name: "last" } });
    expect(await summaryNow(w.fast)).toBeDefined();
    await keptIsRecomputed(w.fast);
    await agree(w);

    // the two merges the full path made set the summary they followed aside too
    for (let i = 0; i < 2; i++) {
      r = await both(w, "cluster", "undo");
      expect(r.fast).toBe(r.full);
      expect(r.fast).toMatch(/^undid: merge 2 clusters/);
      expect(await summaryNow(w.fast)).toBeDefined();
      await keptIsRecomputed(w.fast);
      await agree(w);
    }
    // a decision that set no summary aside (the hand-made split): the full path undoes it,
    // and the next read computes the summary again
    r = await both(w, "cluster", "undo");
    expect(r.fast).toBe(r.full);
    expect(r.fast).toMatch(/^undid: split/);
    expect(await summaryNow(w.fast)).toBeUndefined(); // not taken
    await agree(w);

    // the first merge and the rename: from the summaries they set aside, still current
    for (const what of [
      /^undid: merge 3 clusters/,
      /^undid: rename \d+ attempts? → “named first”/,
    ]) {
      r = await both(w, "cluster", "undo");
      expect(r.fast).toBe(r.full);
      expect(r.fast).toMatch(what);
      expect(await summaryNow(w.fast)).toBeDefined();
      await keptIsRecomputed(w.fast);
      await agree(w);
    }
    expect((await listed(w.fast)).map((c) => c.id)).toEqual(
      (await listed(w.full)).map((c) => c.id),
    );
    expect((await listed(w.fast)).map((c) => c.id).slice(0, 6)).toEqual(
      [c1, c2, c3, c4, c5, c6].map((c) => c.id),
    );
  });
});
