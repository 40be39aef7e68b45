import { existsSync, rmSync, statSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { clustersSummary, decide } from "../../../src/core/app/mining.js";
import { lastLabels, readLabelStore, writeLabelStore } from "../../../src/core/mine/label-cache.js";
import { miningCacheFile } from "../../../src/core/mine/mining-cache.js";
import { summarizeMine } from "../../../src/core/mine/render.js";
import { currentClusters, runMining } from "../../../src/core/mine/run-mining.js";
import { withAllParts } from "../../../src/core/workspace/index-attempts.js";
import { loadWorkspace } from "../../../src/core/workspace/load.js";
import { openCurrentWorkspace } from "../../../src/core/workspace/open.js";
import { workspacePaths } from "../../../src/core/workspace/paths.js";
import { DEMO_DIR, direct, removeTempWorkspaces, tempWorkspace } from "./demo-workspace.js";

afterAll(removeTempWorkspaces);

const shown = (r: Awaited<ReturnType<typeof direct>> | undefined) => {
  if (!r) return undefined;
  const { store: _s, hits: _h, ...rest } = r;
  return JSON.parse(JSON.stringify(rest));
};

describe("current clusters from the mining cache, decisions applied on read", () => {
  it("equal mine's own after rename, merge, split and exclude, without re-clustering", async () => {
    const dir = tempWorkspace(`${DEMO_DIR}/`);
    await runMining(await openCurrentWorkspace(dir), { labeler: "heuristic" });
    const ws = await openCurrentWorkspace(dir);
    expect(ws.index).toBeDefined();
    const first = await currentClusters(ws);
    expect(shown(first)).toEqual(shown(await direct(dir)));
    const cached = statSync(miningCacheFile(dir)).mtimeMs;

    const [a, b, c] = first?.clusters ?? [];
    expect(c).toBeDefined();
    await decide({ ws }, { op: "rename", members: a!.attemptIds, name: "renamed by hand" });
    await decide({ ws }, { op: "merge", groups: [a!.attemptIds, b!.attemptIds], name: "both" });
    await decide({ ws }, { op: "split", attemptIds: [c!.attemptIds[0]!], name: "one out" });
    await decide({ ws }, { op: "exclude", attemptIds: [c!.attemptIds.at(-1)!], reason: "quirk" });
    const after = await currentClusters(await openCurrentWorkspace(dir));
    expect(after?.clusters.map((x) => x.name)).toEqual(expect.arrayContaining(["both", "one out"]));
    expect(after?.userExcluded).toEqual([{ attemptId: c!.attemptIds.at(-1)!, reason: "quirk" }]);
    expect(shown(after)).toEqual(shown(await direct(dir)));
    // served from the cache: the clustering before decisions was not written again
    expect(statSync(miningCacheFile(dir)).mtimeMs).toBe(cached);

    // a new mining run changes the label store: the cache is not served, and rewritten
    await runMining(await openCurrentWorkspace(dir), {
      labeler: "heuristic",
      retryUnlabelled: true,
    });
    const again = await currentClusters(await openCurrentWorkspace(dir));
    expect(shown(again)).toEqual(shown(await direct(dir)));
    expect(statSync(miningCacheFile(dir)).mtimeMs).not.toBe(cached);
  });

  it("labels read again in one process follow a rewritten label store", async () => {
    const dir = tempWorkspace(`${DEMO_DIR}/`);
    await runMining(await openCurrentWorkspace(dir), { labeler: "heuristic" });
    const before = await lastLabels(dir);
    const id = [...(before?.keys() ?? [])][0];
    expect(id).toBeDefined();
    expect((await lastLabels(dir))?.get(id!)).toEqual(before?.get(id!));
    const store = await readLabelStore(dir, "heuristic");
    const entry = store.entries[id!]!;
    await writeLabelStore(dir, {
      ...store,
      entries: { ...store.entries, [id!]: { ...entry, label: { ...entry.label, rationale: "x" } } },
    });
    expect((await lastLabels(dir))?.get(id!)?.rationale).toBe("x");
  });

  it("a mining run keeps the clustering it made: the next read clusters nothing again", async () => {
    const dir = tempWorkspace(`${DEMO_DIR}/`);
    const ws0 = await openCurrentWorkspace(dir);
    await runMining(ws0, { labeler: "heuristic" });
    const [a] = (await currentClusters(ws0))?.clusters ?? [];
    await decide({ ws: ws0 }, { op: "rename", members: a!.attemptIds, name: "kept by hand" });
    // a full load (what `fire mine` reads) mines with the decision already made
    const mined = await runMining(await loadWorkspace(dir), { labeler: "heuristic" });
    expect(mined.clusters.map((c) => c.name)).toContain("kept by hand");
    const kept = statSync(miningCacheFile(dir)).mtimeMs;
    const ws = await openCurrentWorkspace(dir);
    const read = await currentClusters(ws);
    expect(statSync(miningCacheFile(dir)).mtimeMs).toBe(kept); // served, not written again
    // what a read computes without the cache (every label reused), and what mine returned
    expect(shown(read)).toEqual(shown(await direct(dir)));
    expect(read?.reused).toBe(mined.labels.length);
    expect({ ...shown(read), labelled: 0, reused: 0 }).toEqual({
      ...shown(mined),
      labelled: 0,
      reused: 0,
    });
    expect(await clustersSummary({ ws })).toEqual(summarizeMine(read!));

    // without its cache, a read of the index-backed workspace computes the same clustering
    rmSync(miningCacheFile(dir));
    rmSync(workspacePaths(dir).clustersSummary);
    const again = await currentClusters(await openCurrentWorkspace(dir));
    expect(shown(again)).toEqual(shown(read));
  });

  it("a run whose labeller answered for fewer attempts than asked keeps no clustering", async () => {
    const dir = tempWorkspace(`${DEMO_DIR}/`);
    const r = await runMining(await loadWorkspace(dir), {
      labeler: "llm",
      external: async () => ({ labels: [] }),
    });
    expect(r.triage.inScope.length).toBeGreaterThan(0);
    expect(existsSync(miningCacheFile(dir))).toBe(false);
    expect(existsSync(workspacePaths(dir).clustersSummary)).toBe(false);
  });

  it("attempts read unit by unit equal a full load's, field order included", async () => {
    const dir = tempWorkspace(`${DEMO_DIR}/`);
    const full = await loadWorkspace(dir);
    const indexed = await openCurrentWorkspace(dir);
    expect(indexed.index).toBeDefined();
    const read = withAllParts(indexed.attempts);
    expect(read.map((a) => JSON.stringify(a))).toEqual(full.attempts.map((a) => JSON.stringify(a)));
    // the workspace's own attempts stay lazy: an accessor, not a value
    const events = Object.getOwnPropertyDescriptor(indexed.attempts[0], "events");
    expect(typeof events?.get).toBe("function");
  });
});
