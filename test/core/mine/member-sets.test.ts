import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InputError } from "../../../src/core/errors.js";
import {
  appendDecision,
  type Decision,
  decisionsPath,
  loadDecisions,
  parseDecisions,
  undoLastDecision,
} from "../../../src/core/mine/decisions.js";
import {
  DECISIONS_VERSION,
  decisionsDigest,
  decisionsText,
  storedDecision,
} from "../../../src/core/mine/decisions-log.js";
import {
  MEMBER_SET_INLINE_MAX,
  memberSetDigest,
  memberSetFile,
} from "../../../src/core/mine/member-sets.js";
import { type MineResult, mine } from "../../../src/core/mine/mine.js";
import type { Workspace } from "../../../src/core/workspace/load.js";
import { workspacePaths } from "../../../src/core/workspace/paths.js";
import { DEMO_DIR, loadDemo, removeTempWorkspaces, tempWorkspace } from "./demo-workspace.js";

afterAll(removeTempWorkspaces);

const ids = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(4, "0")}`);

const big = ids("a", 40);
const other = ids("b", 12);
const few = ids("c", MEMBER_SET_INLINE_MAX);

/** Decisions of every kind, with long lists and short ones. */
const DECISIONS: Decision[] = [
  { op: "rename", at: "2026-12-04T10:00:00.000Z", members: big, name: "first" },
  { op: "rename", at: "2026-12-04T10:01:00.000Z", members: big, name: "second" },
  { op: "merge", at: "2026-12-04T10:02:00.000Z", groups: [big, few, other], name: "all" },
  { op: "split", attemptIds: [big[0]!], name: "one out" },
  { op: "exclude", at: "2026-12-04T10:03:00.000Z", attemptIds: other, reason: "out of scope" },
];

/** The decisions file as fire wrote it before member sets: every list spelled out. */
const v1Text = (decisions: readonly Decision[]) =>
  `${JSON.stringify({ version: 1, decisions }, null, 2)}\n`;

const stored = (dir: string) =>
  JSON.parse(readFileSync(decisionsPath(dir), "utf8")) as {
    version: number;
    decisions: Record<string, unknown>[];
  };

const setsOf = (dir: string) => readdirSync(workspacePaths(dir).memberSets).sort();

const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe("decisions with member sets (mining/member-sets/)", () => {
  it("round-trips every kind of decision: long lists as a set named by its digest, short inline", async () => {
    const dir = tempWorkspace(`${DEMO_DIR}/`);
    for (const d of DECISIONS) await appendDecision(dir, d);
    expect((await loadDecisions(dir)).decisions).toEqual(DECISIONS);

    const file = stored(dir);
    expect(file.version).toBe(DECISIONS_VERSION);
    const bigRef = { set: memberSetDigest(big), count: big.length };
    const otherRef = { set: memberSetDigest(other), count: other.length };
    expect(file.decisions.map((d) => d.members ?? d.groups ?? d.attemptIds)).toEqual([
      bigRef,
      bigRef, // the same members: the same set, written once
      [bigRef, few, otherRef],
      [big[0]],
      otherRef,
    ]);
    expect(setsOf(dir)).toEqual([`${bigRef.set}.json`, `${otherRef.set}.json`].sort());
    expect(JSON.parse(readFileSync(memberSetFile(dir, bigRef.set), "utf8"))).toEqual(big);
    // a record names ~100 bytes of set where it held every id
    expect(readFileSync(decisionsPath(dir), "utf8").length).toBeLessThan(1500);

    // the text is what the schema's parse gives back, and its digest the stored form's
    const text = readFileSync(decisionsPath(dir), "utf8");
    const parsed = parseDecisions(text, decisionsPath(dir));
    expect(decisionsText(parsed)).toBe(text);
    expect(decisionsDigest(parsed.decisions)).toBe(
      decisionsDigest(await Promise.all(DECISIONS.map((d) => storedDecision(dir, d)))),
    );
  });

  it("reads a version 1 file as before; its undo writes version 2 with the same decisions", async () => {
    const dir = tempWorkspace(`${DEMO_DIR}/`);
    mkdirSync(workspacePaths(dir).mining, { recursive: true });
    writeFileSync(decisionsPath(dir), v1Text(DECISIONS));
    expect((await loadDecisions(dir)).decisions).toEqual(DECISIONS);

    const { undone, at } = await undoLastDecision(dir);
    expect(undone).toEqual(DECISIONS.at(-1));
    expect(at.decisions.decisions).toEqual(DECISIONS.slice(0, -1));
    expect(stored(dir).version).toBe(2);
    expect((await loadDecisions(dir)).decisions).toEqual(DECISIONS.slice(0, -1));
    // the digest of the decisions (of their stored form) does not depend on the version
    // they were read from: an undo finds the summary set aside either way
    expect(
      decisionsDigest(await Promise.all(DECISIONS.slice(0, -1).map((d) => storedDecision(dir, d)))),
    ).toBe(
      decisionsDigest(parseDecisions(readFileSync(decisionsPath(dir), "utf8"), "x").decisions),
    );
  });

  it("a missing or changed member set is an input error naming the decision's line and the set", async () => {
    const dir = tempWorkspace(`${DEMO_DIR}/`);
    await appendDecision(dir, { op: "split", attemptIds: ["x-1"] });
    await appendDecision(dir, { op: "rename", members: big, name: "n" });
    const setFile = memberSetFile(dir, memberSetDigest(big));
    const fails = async (why: RegExp) => {
      const err = await errorOf(loadDecisions(dir));
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).format()).toMatch(
        /decisions\.json:11: member set \S+member-sets\/[0-9a-f]{64}\.json /,
      );
      expect((err as InputError).format()).toMatch(why);
    };

    writeFileSync(setFile, JSON.stringify([...big.slice(1), "a-9999"]));
    await fails(/holds other ids than the ones its name is the digest of/);
    writeFileSync(setFile, JSON.stringify(big.slice(1)));
    await fails(/holds 39 ids, the decision says 40/);
    writeFileSync(setFile, JSON.stringify([1, 2]));
    await fails(/is not a list of attempt ids/);
    writeFileSync(setFile, "[");
    await fails(/is not JSON/);
    writeFileSync(setFile, `${JSON.stringify(big, null, 4)}\n`); // another layout: the same ids
    expect((await loadDecisions(dir)).decisions.at(-1)).toEqual({
      op: "rename",
      members: big,
      name: "n",
    });
    // gone: the checked path refuses to write past it, too
    rmSync(setFile);
    await fails(/is missing \(keep mining\/member-sets\/ with the decisions\)/);
    expect(await errorOf(appendDecision(dir, { op: "split", attemptIds: ["y"] }))).toBeInstanceOf(
      InputError,
    );
  });

  it("refuses a reference that is not a member set's, naming the line", async () => {
    const dir = tempWorkspace(`${DEMO_DIR}/`);
    mkdirSync(workspacePaths(dir).mining, { recursive: true });
    writeFileSync(
      decisionsPath(dir),
      '{\n  "version": 2,\n  "decisions": [\n    { "op": "rename", "members": { "set": "abc", "count": 3 }, "name": "x" }\n  ]\n}\n',
    );
    const err = await errorOf(loadDecisions(dir));
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).format()).toMatch(/decisions\.json:4: .*64 hex digits/);
    // and member sets in a version 1 file are not read (that version had none)
    writeFileSync(
      decisionsPath(dir),
      `${JSON.stringify({ version: 1, decisions: [{ op: "rename", members: { set: memberSetDigest(big), count: 40 }, name: "x" }] })}\n`,
    );
    expect(await errorOf(loadDecisions(dir))).toBeInstanceOf(InputError);
  });
});

describe("replaying decisions stored with member sets over a mine", () => {
  let ws: Workspace;
  let base: MineResult;
  beforeAll(async () => {
    ws = await loadDemo();
    base = await mine(ws.attempts, { labeler: "heuristic", config: ws.config });
  });

  it("gives the clusters the same decisions give in memory, and those of the version 1 file", async () => {
    const [c1, c2, c3, c4] = base.clusters as [
      MineResult["clusters"][0],
      MineResult["clusters"][0],
      MineResult["clusters"][0],
      MineResult["clusters"][0],
    ];
    expect(c4).toBeDefined();
    expect(c1.attemptIds.length).toBeGreaterThan(MEMBER_SET_INLINE_MAX);
    const decisions: Decision[] = [
      { op: "rename", members: c1.attemptIds, name: "renamed" },
      { op: "merge", groups: [c2.attemptIds, c3.attemptIds], name: "merged" },
      { op: "exclude", attemptIds: c4.attemptIds, reason: "out" },
    ];
    const v2 = tempWorkspace(`${DEMO_DIR}/`);
    for (const d of decisions) await appendDecision(v2, d);
    expect(stored(v2).decisions[0]?.members).toHaveProperty("set");
    const v1 = tempWorkspace(`${DEMO_DIR}/`);
    mkdirSync(workspacePaths(v1).mining, { recursive: true });
    writeFileSync(decisionsPath(v1), v1Text(decisions));

    const run = async (d: readonly Decision[]) =>
      mine(ws.attempts, { labeler: "heuristic", config: ws.config, decisions: [...d] });
    const inMemory = await run(decisions);
    expect(inMemory.clusters.map((c) => c.name)).toContain("renamed");
    expect(inMemory.clusters.map((c) => c.name)).toContain("merged");
    for (const dir of [v2, v1]) {
      const again = await run((await loadDecisions(dir)).decisions);
      expect(again.clusters).toEqual(inMemory.clusters);
      expect(again.triage).toEqual(inMemory.triage);
    }
  });
});
