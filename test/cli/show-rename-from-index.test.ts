import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { jsonText } from "../../src/cli/util/out.js";
import { cachedClusters, indexedAttempt, workspaceHead } from "../../src/core/app/cached-reads.js";
import { clusters } from "../../src/core/app/mining.js";
import { currentSummary } from "../../src/core/mine/clusters-summary.js";
import { Decision, parseDecisions } from "../../src/core/mine/decisions.js";
import { decisionsText, schemaOrder } from "../../src/core/mine/decisions-log.js";
import { renderMine, renderMineSummary } from "../../src/core/mine/render.js";
import { indexFile } from "../../src/core/workspace/head.js";
import { mayNameAttempt } from "../../src/core/workspace/indexed-attempt.js";
import { openCurrentWorkspace } from "../../src/core/workspace/open.js";
import { workspacePaths } from "../../src/core/workspace/paths.js";
import { removeTempWorkspaces, tempWorkspace } from "../core/mine/demo-workspace.js";
import { fireIn } from "../helpers/cli.js";
import { fixture } from "../helpers/paths.js";

afterAll(removeTempWorkspaces);

const fire = async (...args: string[]) => {
  const r = await fireIn(args);
  return { ...r, out: r.status === 0 ? r.stdout : `${r.status} ${r.stderr}` };
};

/** A workspace of its own copy of the 15 real Harbor OpenClaw trials (its sources change). */
function openclawWorkspace(): string {
  const dir = tempWorkspace("traces/");
  cpSync(fixture("harbor-openclaw"), join(dir, "traces"), { recursive: true });
  return dir;
}

/** What the command printed with the index's head gone: the full open (its fallback). */
async function withoutHead(dir: string, ...args: string[]) {
  rmSync(`${indexFile(dir)}.head`, { force: true });
  return fire(...args);
}

describe("fire show from the index row (real Harbor trials)", () => {
  it("prints what the full open prints, and reads the sources again when they changed", async () => {
    const dir = openclawWorkspace();
    const listed = JSON.parse((await fire("attempts", "--json", "-w", dir)).stdout) as {
      id: string;
    }[];
    expect(listed.length).toBeGreaterThan(5);
    const ids = [listed[0]!.id, listed[7]!.id, listed.at(-1)!.id];
    const head = (await workspaceHead(dir))!;
    expect(head).toBeDefined();
    const ws = await openCurrentWorkspace(dir);
    for (const id of ids) {
      // the fast path answers, with the attempt the opened workspace has
      expect(jsonText(indexedAttempt(head, id))).toBe(jsonText(ws.index!.byId.get(id)));
    }
    const refs = [...ids, ids[1]!.slice(3, 20), "__", "no-such-attempt"];
    for (const ref of refs)
      for (const json of [[], ["--json"]]) {
        const fast = await fire("show", ref, ...json, "-w", dir);
        const full = await withoutHead(dir, "show", ref, ...json, "-w", dir);
        expect(fast.out).toBe(full.out);
      }
    expect((await fire("show", "__", "-w", dir)).stderr).toMatch(/matches \d+ attempts/);

    // the lookup file beside the index answers alone (the index's bytes edited: not read)…
    const index = readFileSync(indexFile(dir));
    const lookup = workspacePaths(dir).indexLookup;
    const kept = readFileSync(lookup);
    writeFileSync(indexFile(dir), Buffer.concat([index, Buffer.from(" ")]));
    expect(jsonText(indexedAttempt(head, ids[1]!))).toBe(jsonText(ws.index!.byId.get(ids[1]!)));
    // …an edited lookup is not served: the index's columns answer, else nothing does
    writeFileSync(lookup, readFileSync(lookup, "utf8").replace(ids[1]!, ids[0]!));
    expect(indexedAttempt(head, ids[1]!)).toBeUndefined();
    writeFileSync(indexFile(dir), index);
    expect(jsonText(indexedAttempt(head, ids[1]!))).toBe(jsonText(ws.index!.byId.get(ids[1]!)));
    writeFileSync(lookup, kept);

    // whether a name may be an attempt id: from the lookup's bytes when it is fire's own,
    // from the index's columns when it is not; never false for an id
    const all = listed.map((a) => a.id);
    const partial = ids[1]!.slice(3, 20);
    for (const id of all) expect(mayNameAttempt(head, id), id).toBe(true);
    expect([mayNameAttempt(head, "no-such-attempt"), mayNameAttempt(head, partial)]).toEqual([
      false,
      false,
    ]);
    writeFileSync(lookup, Buffer.concat([kept, Buffer.from(" ")]));
    expect(mayNameAttempt(head, ids[1]!)).toBe(true);
    expect(mayNameAttempt(head, "no-such-attempt")).toBe(false);
    writeFileSync(lookup, kept);

    // a source gone: the index no longer matches, the sources are read again
    const before = (await fire("show", ids[0]!, "-w", dir)).out;
    const gone = ws.index!.byId.get(ids[2]!)!.source.path;
    expect(ws.index!.byId.get(ids[0]!)!.source.path).not.toBe(gone);
    rmSync(gone, { recursive: true });
    expect(await workspaceHead(dir)).toBeUndefined();
    expect((await fire("show", ids[0]!, "-w", dir)).out).toBe(before);
    expect(await workspaceHead(dir)).toBeDefined(); // the read wrote the index again
  });
});

describe("fire cluster rename against the kept clusters summary (real Harbor trials)", () => {
  it("records what the full path records, and the summary is the one computed again", async () => {
    const dir = openclawWorkspace();
    expect((await fire("mine", "--labeler", "heuristic", "-w", dir)).status).toBe(0);
    const ws = await openCurrentWorkspace(dir);
    const mined = (await clusters({ ws }))!;
    expect(mined.clusters.length).toBeGreaterThan(1);
    const [c1, c2] = mined.clusters as [(typeof mined.clusters)[0], (typeof mined.clusters)[0]];
    const paths = workspacePaths(dir);
    const summaryNow = async () => cachedClusters((await workspaceHead(dir))!);

    // the kept summary is current: the rename is recorded and the summary follows at once
    expect(await summaryNow()).toBeDefined();
    const fast = await fire("cluster", "rename", c1.id, "first name", "-w", dir);
    expect(fast.out).toBe(`renamed ${c1.id} to "first name"\n${RECORDED}`);
    const kept = await summaryNow();
    expect(kept?.clusters.find((c) => c.id === c1.id)?.name).toBe("first name");
    // … and is what computing it again gives, as `fire clusters` prints it
    rmSync(paths.clustersSummary);
    expect(await currentSummary(ws)).toEqual(kept);
    expect(renderMineSummary(kept!)).toBe(renderMine((await clusters({ ws }))!));

    // the summary is stale (a hand edit of the decisions): the full path records the rename
    const text = readFileSync(paths.decisions, "utf8");
    writeFileSync(paths.decisions, `${text.trimEnd()}\n\n`);
    expect(await summaryNow()).toBeUndefined();
    const full = await fire("cluster", "rename", c2.name, "second name", "--json", "-w", dir);
    // the full path computed the summary, and the rename then followed it: the next decision
    // finds it current (before, each one after a full-path decision computed it again)
    const afterFull = await summaryNow();
    expect(afterFull?.clusters.find((c) => c.id === c2.id)?.name).toBe("second name");
    rmSync(paths.clustersSummary);
    expect(await currentSummary(await openCurrentWorkspace(dir))).toEqual(afterFull);
    await fire("clusters", "-w", dir);
    expect(await summaryNow()).toBeDefined();
    const fastJson = await fire("cluster", "rename", c2.id, "third name", "--json", "-w", dir);
    const shape = (out: string) =>
      JSON.parse(out.replace(/"at": "[^"]+"/, '"at": "T"').replace(/(second|third) name/g, "N"));
    expect(shape(fastJson.out)).toEqual(shape(full.out));
    expect(shape(full.out).decision).toEqual({
      op: "rename",
      members: c2.attemptIds,
      name: "N",
      at: "T",
    });

    // the file is what the checked path writes: each decision in the schema's order
    const written = readFileSync(paths.decisions, "utf8");
    const parsed = parseDecisions(written, paths.decisions);
    expect(written).toBe(decisionsText(parsed));
    expect(parsed.decisions.map((d) => [d.op, "name" in d ? d.name : ""])).toEqual([
      ["rename", "first name"],
      ["rename", "second name"],
      ["rename", "third name"],
    ]);
    rmSync(paths.clustersSummary, { force: true });
    const shown = (await fire("clusters", "-w", dir)).out;
    expect(shown).toContain("third name (named by you)");
    expect(shown).toContain("first name (named by you)");

    // no summary at all (a stale cache): the rename still works, by the full path
    rmSync(paths.clustersSummary, { force: true });
    rmSync(`${indexFile(dir)}.head`, { force: true });
    const again = await fire("cluster", "rename", c1.id, "fourth name", "-w", dir);
    expect(again.out).toBe(`renamed ${c1.id} to "fourth name"\n${RECORDED}`);
    expect((await fire("clusters", "-w", dir)).out).toContain("fourth name (named by you)");
    // errors as before: an unknown cluster, a name the schema refuses
    expect((await fire("cluster", "rename", "c-nope", "x", "-w", dir)).out).toMatch(
      /no cluster matches c-nope/,
    );
    const long = await fire("cluster", "rename", c1.id, "x".repeat(201), "-w", dir);
    expect(long.status).not.toBe(0);
  });

  it("writes each decision with its keys in the schema's order", () => {
    const samples: unknown[] = [
      { name: "n", members: ["a"], at: "t", op: "rename" },
      { groups: [["a"], ["b"]], op: "merge" },
      { name: "n", attemptIds: ["a"], op: "split" },
      { reason: "r", attemptIds: ["a"], at: "t", op: "exclude" },
    ];
    for (const s of samples) {
      const d = Decision.parse(s);
      expect(JSON.stringify(schemaOrder(s as Decision))).toBe(JSON.stringify(d));
    }
  });
});

const RECORDED = "recorded in mining/decisions.json (re-clustering keeps it)\n";
