import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { appendDecision, decisionsPath } from "../../src/core/mine/decisions.js";
import { MEMBER_SET_INLINE_MAX, memberSetDigest } from "../../src/core/mine/member-sets.js";
import { workspacePaths } from "../../src/core/workspace/paths.js";
import { DEMO_DIR, removeTempWorkspaces, tempWorkspace } from "../core/mine/demo-workspace.js";
import {
  both,
  decisionsOf,
  fire,
  keptIsRecomputed,
  type Pair,
  pair,
  summaryNow,
} from "../helpers/kept-summary.js";

afterAll(removeTempWorkspaces);

type Shown = { id: string; name: string; attemptIds: string[] };

const listed = async (dir: string) =>
  (JSON.parse((await fire("clusters", "--json", "-w", dir)).stdout) as { clusters: Shown[] })
    .clusters;

/** Both workspaces agree on the decisions and on `fire clusters` (text and JSON). */
async function agree(w: Pair) {
  expect(decisionsOf(w.fast)).toBe(decisionsOf(w.full));
  for (const args of [["clusters"], ["clusters", "--json"]]) {
    const r = await both(w, ...args);
    expect(r.fast).toBe(r.full);
  }
}

/** A cluster's members as a decision stores them: a member set unless they are few. */
const asStored = (c: Shown) =>
  c.attemptIds.length > MEMBER_SET_INLINE_MAX
    ? { set: memberSetDigest(c.attemptIds), count: c.attemptIds.length }
    : c.attemptIds;

const fileOf = (dir: string) =>
  JSON.parse(readFileSync(decisionsPath(dir), "utf8")) as {
    version: number;
    decisions: Record<string, unknown>[];
  };

describe("a decisions file of version 1 (every id inline) in the CLI", () => {
  it("still loads; decisions and undo on it take either path alike, and it becomes version 2", async () => {
    const w = await pair(() => tempWorkspace(`${DEMO_DIR}/`));
    const mined = await listed(w.fast);
    const [c1, c2, c3, c4] = mined as [Shown, Shown, Shown, Shown];
    expect(c4).toBeDefined();
    const v1 = `${JSON.stringify(
      {
        version: 1,
        decisions: [
          { op: "rename", at: "2026-12-01T00:00:00.000Z", members: c1.attemptIds, name: "old" },
          { op: "merge", groups: [c2.attemptIds, c3.attemptIds], name: "old merge" },
        ],
      },
      null,
      2,
    )}\n`;
    for (const dir of [w.fast, w.full]) {
      mkdirSync(workspacePaths(dir).mining, { recursive: true });
      writeFileSync(decisionsPath(dir), v1);
    }
    await agree(w); // read as before, and the summary computed from it kept in w.fast
    expect(await summaryNow(w.fast)).toBeDefined();
    const names = (await listed(w.fast)).map((c) => c.name);
    expect(names).toContain("old");
    expect(names).toContain("old merge");

    // a rename against the summary kept for the version 1 file: the file is written as
    // version 2, its long lists as member sets, the same as the full path writes it
    let r = await both(w, "cluster", "rename", c4.id, "new");
    expect(r.fast).toBe(r.full);
    expect(await summaryNow(w.fast)).toBeDefined();
    await keptIsRecomputed(w.fast);
    await agree(w);
    const file = fileOf(w.fast);
    expect(file.version).toBe(2);
    expect(file.decisions.map((d) => d.members ?? d.groups)).toEqual([
      asStored(c1),
      [asStored(c2), asStored(c3)],
      asStored(c4),
    ]);
    const sets = [c1, c2, c3, c4].filter((c) => c.attemptIds.length > MEMBER_SET_INLINE_MAX);
    expect(sets.length).toBeGreaterThan(1);
    expect(readdirSync(workspacePaths(w.fast).memberSets)).toHaveLength(sets.length);

    // undo, three times: the rename from the summary it set aside (the digest of the
    // decisions before it is the same whichever version they were read from), then the two
    // decisions of the version 1 file, which set none aside: the full path in both
    r = await both(w, "cluster", "undo", "--json");
    expect(r.fast).toBe(r.full);
    expect(JSON.parse(r.fast)).toMatchObject({
      undone: { op: "rename", members: c4.attemptIds, name: "new" },
    });
    expect(await summaryNow(w.fast)).toBeDefined();
    await keptIsRecomputed(w.fast);
    await agree(w);
    for (const what of ["old merge", "old"]) {
      r = await both(w, "cluster", "undo", "--json");
      expect(r.fast).toBe(r.full);
      expect(JSON.parse(r.fast)).toMatchObject({ undone: { name: what } });
      await agree(w);
    }
    expect(fileOf(w.fast)).toEqual({ version: 2, decisions: [] });
    expect(await listed(w.fast)).toEqual(mined);
  });

  it("an exclude and a merge recorded with member sets undo from the kept summary", async () => {
    const w = await pair(() => tempWorkspace(`${DEMO_DIR}/`));
    const [c1, c2, c3] = (await listed(w.fast)) as [Shown, Shown, Shown];
    let r = await both(w, "cluster", "exclude", c1.id, "--reason", "out", "--json");
    expect(r.fast).toBe(r.full);
    expect(JSON.parse(r.fast)).toMatchObject({ decision: { attemptIds: c1.attemptIds } });
    r = await both(w, "cluster", "merge", c2.id, c3.id, "--name", "both");
    expect(r.fast).toBe(r.full);
    expect(c1.attemptIds.length).toBeGreaterThan(MEMBER_SET_INLINE_MAX);
    expect(fileOf(w.fast).decisions.map((d) => d.attemptIds ?? d.groups)).toEqual([
      asStored(c1),
      [asStored(c2), asStored(c3)],
    ]);
    await agree(w);

    // a split of several attempts (stored as a member set) made elsewhere: an exclude of a
    // cluster it does not touch still follows the summary; of one it touches, the full path
    const [, , , c4, c5] = (await listed(w.fast)) as Shown[];
    expect(c5).toBeDefined();
    expect(c4!.attemptIds.length).toBeGreaterThan(MEMBER_SET_INLINE_MAX);
    for (const dir of [w.fast, w.full])
      await appendDecision(dir, { op: "split", attemptIds: c4!.attemptIds, name: "split off" });
    expect(fileOf(w.fast).decisions.at(-1)?.attemptIds).toEqual(asStored(c4!));
    await agree(w); // the summary computed again, with the split
    r = await both(w, "cluster", "exclude", c5!.id, "--reason", "untouched");
    expect(r.fast).toBe(r.full);
    expect(await summaryNow(w.fast)).toBeDefined(); // taken fast
    await keptIsRecomputed(w.fast);
    r = await both(w, "cluster", "exclude", "split off", "--reason", "touched");
    expect(r.fast).toBe(r.full);
    expect(await summaryNow(w.fast)).toBeUndefined(); // the full path
    await agree(w);
    for (const what of [
      /^undid: exclude/,
      /^undid: exclude/,
      /^undid: split \S+(, \S+){2,} out as “split off”/,
    ]) {
      r = await both(w, "cluster", "undo");
      expect(r.fast).toBe(r.full);
      expect(r.fast).toMatch(what);
      await agree(w);
    }

    for (const what of [/^undid: merge 2 clusters/, /^undid: exclude \d+ attempts: out/]) {
      r = await both(w, "cluster", "undo");
      expect(r.fast).toBe(r.full);
      expect(r.fast).toMatch(what);
      expect(await summaryNow(w.fast)).toBeDefined(); // taken fast
      await keptIsRecomputed(w.fast);
      await agree(w);
    }
  });
});
