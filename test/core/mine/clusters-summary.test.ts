import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { clusters, clustersSummary, decide } from "../../../src/core/app/mining.js";
import { renderMine, renderMineSummary } from "../../../src/core/mine/render.js";
import { runMining } from "../../../src/core/mine/run-mining.js";
import { openCurrentWorkspace } from "../../../src/core/workspace/open.js";
import { workspacePaths } from "../../../src/core/workspace/paths.js";
import { DEMO_DIR, removeTempWorkspaces, tempWorkspace } from "./demo-workspace.js";

afterAll(removeTempWorkspaces);

describe("fire clusters' summary", () => {
  it("prints what the full result prints, is kept while unchanged and follows a decision", async () => {
    const dir = tempWorkspace(`${DEMO_DIR}/`);
    const ws0 = await openCurrentWorkspace(dir);
    expect(await clustersSummary({ ws: ws0 })).toBeUndefined(); // nothing mined yet
    await runMining(ws0, { labeler: "heuristic" });
    const ws = await openCurrentWorkspace(dir);
    const text = async () => renderMineSummary((await clustersSummary({ ws }))!);
    const full = async () => renderMine((await clusters({ ws }))!);
    const expected = await full();
    expect(expected).toMatch(/cluster\(s\):/);
    expect(await text()).toBe(expected); // computed and stored
    const file = workspacePaths(dir).clustersSummary;
    // small beside the whole result it stands for (labels, triages, hits, clusters)
    const { store: _store, hits, ...whole } = (await clusters({ ws }))!;
    expect(readFileSync(file).length).toBeLessThan(
      JSON.stringify({ ...whole, hits: [...hits] }).length / 4,
    );
    expect(await text()).toBe(expected); // from the file

    // bytes fire did not write (no matching stamp) are never served
    const stored = readFileSync(file, "utf8");
    const first = (await clusters({ ws }))!.clusters[0]!;
    writeFileSync(file, stored.replaceAll(first.name, "edited by hand"));
    expect(await text()).toBe(expected);

    // a decision changes the key: the new name shows at once, as the full result has it
    await decide({ ws }, { op: "rename", members: first.attemptIds, name: "renamed by the user" });
    const after = await text();
    expect(after).toContain("renamed by the user");
    expect(after).toBe(await full());
  });
});
