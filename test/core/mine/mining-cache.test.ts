import { statSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { decide } from "../../../src/core/app/mining.js";
import { loadDecisions } from "../../../src/core/mine/decisions.js";
import { lastLabels, readLabelStore, writeLabelStore } from "../../../src/core/mine/label-cache.js";
import { mine } from "../../../src/core/mine/mine.js";
import { miningCacheFile } from "../../../src/core/mine/mining-cache.js";
import { currentClusters, runMining } from "../../../src/core/mine/run-mining.js";
import { openCurrentWorkspace } from "../../../src/core/workspace/open.js";
import { DEMO_DIR, removeTempWorkspaces, tempWorkspace } from "./demo-workspace.js";

afterAll(removeTempWorkspaces);

/** The clusters as `mine` itself gives them with the workspace's decisions (no cache). */
async function direct(dir: string) {
  const ws = await openCurrentWorkspace(dir);
  return mine(ws.attempts, {
    labeler: "heuristic",
    config: ws.config,
    store: await readLabelStore(dir, "heuristic"),
    decisions: (await loadDecisions(dir)).decisions,
    reuseOnly: true,
  });
}

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
});
