import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { workspaceHead } from "../../../src/core/app/cached-reads.js";
import {
  filterMayHold,
  idFilterOf,
  readIdFilter,
  writeIdFilter,
} from "../../../src/core/workspace/id-filter.js";
import { indexedIds, mayNameAttempt } from "../../../src/core/workspace/indexed-attempt.js";
import { openCurrentWorkspace } from "../../../src/core/workspace/open.js";
import { workspacePaths } from "../../../src/core/workspace/paths.js";
import { fireIn } from "../../helpers/cli.js";
import { fixture } from "../../helpers/paths.js";
import { DEMO_DIR, removeTempWorkspaces, tempWorkspace } from "../mine/demo-workspace.js";

afterAll(removeTempWorkspaces);

const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe("the id filter beside the index", () => {
  it("holds every id, and few strings that are not ids", () => {
    const held = ids("harbor-trial__x", 20_000);
    const f = idFilterOf(held);
    expect(held.every((id) => filterMayHold(f, id))).toBe(true);
    const others = [...ids("harbor-trial__y", 10_000), ...ids("c-", 10_000)];
    const falsePositives = others.filter((s) => filterMayHold(f, s)).length;
    expect(falsePositives / others.length).toBeLessThan(0.01);
    expect(filterMayHold(idFilterOf([]), "anything")).toBe(false);
    expect(filterMayHold(idFilterOf(["é→😀"]), "é→😀")).toBe(true);
  });

  it("is read only as fire wrote it for this index", async () => {
    const dir = tempWorkspace(`${DEMO_DIR}/`);
    await openCurrentWorkspace(dir); // writes the index, its lookup and the filter
    const head = (await workspaceHead(dir))!;
    expect(readIdFilter(dir, head.digest)).toBeDefined();
    expect(readIdFilter(dir, "another-index")).toBeUndefined();
    const file = workspacePaths(dir).indexIdFilter;
    const kept = readFileSync(file, "utf8");
    writeFileSync(file, kept.replace(/"filter":"./, '"filter":"A'));
    expect(readIdFilter(dir, head.digest)).toBeUndefined(); // edited: its stamp differs
    await writeIdFilter(dir, ["x"], head.digest);
    expect(filterMayHold(readIdFilter(dir, head.digest)!, "x")).toBe(true);
  });
});

describe("mayNameAttempt: the filter's answer is the lookup's", () => {
  it("for every id, cluster ids and names, id parts and other strings; with a filter or without", async () => {
    const dir = tempWorkspace("traces/");
    cpSync(fixture("harbor-openclaw"), join(dir, "traces"), { recursive: true });
    expect((await fireIn(["mine", "--labeler", "heuristic", "-w", dir])).status).toBe(0);
    const head = (await workspaceHead(dir))!;
    const all = indexedIds(head)!;
    expect(all.length).toBeGreaterThan(5);
    const shown = JSON.parse((await fireIn(["clusters", "--json", "-w", dir])).stdout) as {
      clusters: { id: string; name: string }[];
    };
    const refs = [
      ...all,
      ...all.map((id) => id.slice(0, 12)),
      ...all.map((id) => `${id} `),
      ...shown.clusters.flatMap((c) => [c.id, c.id.slice(2, 8), c.name]),
      "c-0000000000",
      "",
      "no-such-attempt",
    ];
    const withFilter = refs.map((r) => mayNameAttempt(head, r));
    expect(withFilter).toEqual(refs.map((r) => all.includes(r)));
    rmSync(workspacePaths(dir).indexIdFilter);
    expect(refs.map((r) => mayNameAttempt(head, r))).toEqual(withFilter);
    // a filter that holds every ref (as if each were a false "may be") leaves each to the lookup
    await writeIdFilter(dir, refs, head.digest);
    expect(refs.map((r) => mayNameAttempt(head, r))).toEqual(withFilter);
  });
});
