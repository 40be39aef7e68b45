import { readFileSync, statSync } from "node:fs";
import { afterAll, describe, expect, it, vi } from "vitest";
import { decide } from "../../../src/core/app/mining.js";
import type { MineResult } from "../../../src/core/mine/mine.js";
import { miningCacheFile, writeMiningCache } from "../../../src/core/mine/mining-cache.js";
import { miningKeyOf } from "../../../src/core/mine/mining-key.js";
import { renderMine } from "../../../src/core/mine/render.js";
import { runMining } from "../../../src/core/mine/run-mining.js";
import { setHandMark } from "../../../src/core/workspace/hand-outcomes.js";
import { loadWorkspace } from "../../../src/core/workspace/load.js";
import { openCurrentWorkspace } from "../../../src/core/workspace/open.js";
import { writeStamped } from "../../../src/core/workspace/stamped-cache.js";
import { fixture } from "../../helpers/paths.js";
import { DEMO_DIR, direct, removeTempWorkspaces, tempWorkspace } from "./demo-workspace.js";

afterAll(removeTempWorkspaces);

/** Everything a reader prints of a result (`fire clusters --json` prints these). */
const shown = (r: MineResult | undefined) => {
  if (!r) return undefined;
  const { store: _s, hits, ...rest } = r;
  return JSON.parse(JSON.stringify({ ...rest, hits: [...hits] }));
};

/**
 * `currentClusters` as another process runs it: fresh modules, so nothing read before (the
 * clustering, the labels) is in memory and the mining cache is read from its file.
 */
async function freshClusters(open: (dir: string) => Promise<Parameters<typeof runMining>[0]>) {
  vi.resetModules();
  const m = await import("../../../src/core/mine/run-mining.js");
  return async (dir: string) => m.currentClusters(await open(dir));
}

const stored = (dir: string) =>
  JSON.parse(readFileSync(miningCacheFile(dir), "utf8")) as {
    v: number;
    key: string;
    result: Record<string, unknown>;
  };

describe("the mining cache keeps what no other file holds", () => {
  it("holds neither triage nor the labels, and a read gives mine's result back", async () => {
    const dir = tempWorkspace(`${DEMO_DIR}/`);
    await runMining(await openCurrentWorkspace(dir), { labeler: "heuristic" });
    const file = stored(dir);
    expect(file.result).not.toHaveProperty("triage");
    expect(file.result).not.toHaveProperty("finalTriage");
    expect(file.result).not.toHaveProperty("triages");
    expect(file.result).not.toHaveProperty("labels");
    const want = await direct(dir);
    expect(file.result.labelIds).toEqual(want.labels.map((l) => l.attemptId));
    expect(want.finalTriage.exclusions.length).toBeGreaterThan(want.triage.exclusions.length);
    const written = statSync(miningCacheFile(dir)).mtimeMs;

    // index-backed (the workbench, `fire clusters`) and a full load alike
    const indexed = await (await freshClusters(openCurrentWorkspace))(dir);
    expect(shown(indexed)).toEqual(shown(want));
    expect(renderMine(indexed!)).toBe(renderMine(want));
    const full = await (await freshClusters((d) => loadWorkspace(d)))(dir);
    expect(shown(full)).toEqual(shown(want));
    expect(statSync(miningCacheFile(dir)).mtimeMs).toBe(written); // served, not written again

    // with the session's labels already read (the workbench), and decisions applied on read
    const read = await freshClusters(openCurrentWorkspace);
    const { lastLabels } = await import("../../../src/core/mine/label-cache.js");
    await lastLabels(dir);
    const [a, b] = want.clusters;
    const ws = await openCurrentWorkspace(dir);
    await decide({ ws }, { op: "merge", groups: [a!.attemptIds, b!.attemptIds], name: "both" });
    await decide({ ws }, { op: "exclude", attemptIds: [a!.attemptIds[0]!], reason: "quirk" });
    const decided = await read(dir);
    expect(decided?.clusters.map((c) => c.name)).toContain("both");
    expect(shown(decided)).toEqual(shown(await direct(dir)));
    expect(statSync(miningCacheFile(dir)).mtimeMs).toBe(written);
  });

  it("keeps the triages a read would not compute back", async () => {
    const dir = tempWorkspace(`${DEMO_DIR}/`);
    const ws = await openCurrentWorkspace(dir);
    const r = await runMining(ws, { labeler: "heuristic" });
    // a triage no computation gives: the cache must keep it to serve it
    const odd: MineResult = {
      ...r,
      finalTriage: { ...r.finalTriage, exclusions: r.finalTriage.exclusions.slice(1) },
    };
    await writeMiningCache(ws, miningKeyOf(ws, "heuristic", new Map())!, odd, new Map());
    expect(stored(dir).result).toHaveProperty("triages");
    const read = await (await freshClusters(openCurrentWorkspace))(dir);
    expect(read?.finalTriage).toEqual(JSON.parse(JSON.stringify(odd.finalTriage)));
    expect(read?.triage).toEqual(JSON.parse(JSON.stringify(r.triage)));
  });

  it("keeps the triages of a full load with outcomes given by hand, and serves them", async () => {
    const dir = tempWorkspace(`${fixture("real-clients")}/`);
    const ws = await loadWorkspace(dir);
    const sessions = ws.attempts.filter((a) => a.outcome === "unknown" && !a.links?.length);
    await setHandMark(dir, sessions[0]!.id, { outcome: "fail" });
    await setHandMark(dir, sessions[1]!.id, { outcome: "pass" });
    const mined = await runMining(ws, { labeler: "heuristic" });
    expect(mined.labels.map((l) => l.attemptId)).toEqual([sessions[0]!.id]);
    // the task-level faults of a triage count hand outcomes, the index's do not: kept
    expect(stored(dir).result).toHaveProperty("triages");
    const written = statSync(miningCacheFile(dir)).mtimeMs;
    const read = await (await freshClusters(openCurrentWorkspace))(dir);
    expect(statSync(miningCacheFile(dir)).mtimeMs).toBe(written);
    const same = (r: MineResult | undefined) => {
      const { labelled: _l, reused: _r, ...rest } = shown(r);
      return rest;
    };
    expect(same(read)).toEqual(same(mined));
  });

  it("ignores a cache of an older version and one naming labels the store lacks", async () => {
    const dir = tempWorkspace(`${DEMO_DIR}/`);
    await runMining(await openCurrentWorkspace(dir), { labeler: "heuristic" });
    const want = await direct(dir);
    const current = stored(dir);
    const renamed = want.clusters.map((c) => ({ ...c, name: "from another fire" }));
    const served = async () => (await freshClusters(openCurrentWorkspace))(dir);

    // the layout before this one (whole labels and triages), under the current key, stamped
    const { store: _s, hits, ...old } = want;
    await writeStamped(
      miningCacheFile(dir),
      JSON.stringify({
        v: current.v - 1,
        key: current.key,
        result: { ...old, clusters: renamed, hits: [...hits] },
      }),
    );
    expect(shown(await served())).toEqual(shown(want));
    expect(stored(dir).v).toBe(current.v); // computed again and rewritten

    // the current layout naming an attempt the label store has no label for
    const ids = current.result.labelIds as string[];
    await writeStamped(
      miningCacheFile(dir),
      JSON.stringify({
        ...current,
        result: { ...current.result, clusters: renamed, labelIds: [...ids, "no-such-attempt"] },
      }),
    );
    expect(shown(await served())).toEqual(shown(want));
    expect(stored(dir).result.labelIds).toEqual(ids);

    // bytes that are not a mining cache at all
    await writeStamped(miningCacheFile(dir), "[1, 2");
    expect(shown(await served())).toEqual(shown(want));
    expect(stored(dir).result.labelIds).toEqual(ids);
  });
});
