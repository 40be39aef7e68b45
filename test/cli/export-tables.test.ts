import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Cluster } from "../../src/core/mine/cluster.js";
import type { Label } from "../../src/core/mine/label.js";
import { DEMO_DIR, removeTempWorkspaces, tempWorkspace } from "../core/mine/demo-workspace.js";
import { fireIn } from "../helpers/cli.js";

const NO_LLM_ENV = { OPENAI_API_KEY: "", OPENAI_BASE_URL: "" };
let ws: string;
let mined: { labels: Label[]; clusters: Cluster[] };
beforeAll(async () => {
  ws = tempWorkspace(`${DEMO_DIR}/`);
  const m = await fireIn(["mine", "--labeler", "heuristic", "--json", "-w", ws], {
    env: NO_LLM_ENV,
  });
  expect(m.status).toBe(0);
  mined = JSON.parse(m.stdout) as typeof mined;
}, 180_000);
afterAll(removeTempWorkspaces);

const exportOf = async (args: string[]) => {
  const r = await fireIn(["export", ...args, "-w", ws], { env: NO_LLM_ENV });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  return r.stdout;
};

describe("fire export labels|clusters --format jsonl|csv", () => {
  it("labels as JSONL: one row per label of the last mine, documented columns in order", async () => {
    const rows = (await exportOf(["labels"]))
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows).toHaveLength(mined.labels.length);
    expect(Object.keys(rows[0]!)).toEqual([
      "attemptId",
      "source",
      "mechanismId",
      "family",
      "mechanism",
      "interventionPoint",
      "signature",
      "isProceduralLoss",
      "exclusion",
      "confidence",
      "detectorIds",
      "model",
      "unlabelledReason",
      "rationale",
    ]);
    for (const [i, l] of mined.labels.entries()) {
      expect(rows[i]).toMatchObject({
        attemptId: l.attemptId,
        mechanism: l.mechanism,
        detectorIds: l.detectorIds,
        confidence: l.confidence,
        mechanismId: l.mechanismId ?? null,
      });
    }
  });

  it("clusters as CSV parse back to the clusters of `fire mine` (lists `;`-joined)", async () => {
    const records = parse(await exportOf(["clusters", "--format", "csv"]), {
      columns: true,
    }) as Record<string, string>[];
    expect(records).toHaveLength(mined.clusters.length);
    expect(records.length).toBeGreaterThan(1);
    for (const [i, c] of mined.clusters.entries()) {
      const r = records[i]!;
      expect(r.id).toBe(c.id);
      expect(r.name).toBe(c.name);
      expect(Number(r.attempts)).toBe(c.attemptIds.length);
      expect(r.attemptIds!.split(";")).toEqual(c.attemptIds);
      expect(r.taskIds!.split(";")).toEqual(c.taskIds);
      expect(r.family).toBe(c.family ?? "");
    }
  });

  it("labels as CSV keep commas, quotes and newlines of free text intact", async () => {
    const out = join(ws, "labels.csv");
    const r = await fireIn(["export", "labels", "--format", "csv", "--out", out, "-w", ws]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(`exported ${mined.labels.length} labels to ${out}\n`);
    const records = parse(await readFile(out, "utf8"), { columns: true }) as Record<
      string,
      string
    >[];
    expect(records.map((x) => x.rationale)).toEqual(mined.labels.map((l) => l.rationale));
    expect(records.map((x) => x.isProceduralLoss)).toEqual(
      mined.labels.map((l) => String(l.isProceduralLoss)),
    );
  });

  it("refuses an unknown table or format, and tables before anything was mined", async () => {
    const bad = await fireIn(["export", "verdictz", "-w", ws]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("unknown export 'verdictz'");
    const fmt = await fireIn(["export", "labels", "--format", "xlsx", "-w", ws]);
    expect(fmt.status).toBe(2);
    expect(fmt.stderr).toContain("--format xlsx");
    const fresh = tempWorkspace(`${DEMO_DIR}/`);
    const none = await fireIn(["export", "clusters", "-w", fresh]);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain("nothing mined yet");
  });

  it("fire cluster rename --json prints the decision, and the export shows the new name", async () => {
    const c = mined.clusters[0]!;
    const r = await fireIn([
      "cluster",
      "rename",
      c.id,
      "Renamed, with a comma",
      "--json",
      "-w",
      ws,
    ]);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { ok: boolean; decision: { op: string; name: string } };
    expect(out.ok).toBe(true);
    expect(out.decision).toMatchObject({ op: "rename", name: "Renamed, with a comma" });
    const records = parse(await exportOf(["clusters", "--format", "csv"]), {
      columns: true,
    }) as Record<string, string>[];
    expect(records.find((x) => x.id === c.id)?.name).toBe("Renamed, with a comma");
  });
  it("fire cluster merge|split|exclude --json print the decision; the export follows it", async () => {
    const [a, b] = [mined.clusters[1]!, mined.clusters[2]!];
    const c = mined.clusters.slice(3).find((x) => x.attemptIds.length > 1)!;
    expect(c).toBeDefined();
    const decided = async (args: string[]) => {
      const r = await fireIn(["cluster", ...args, "--json", "-w", ws]);
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      return JSON.parse(r.stdout) as { ok: boolean; message: string; decision: Decision };
    };
    type Decision = { op: string; groups?: string[][]; attemptIds?: string[]; at: string };
    const merge = await decided(["merge", a.id, b.id, "--name", "ab"]);
    expect(merge.ok).toBe(true);
    expect(merge.decision).toMatchObject({ op: "merge", groups: [a.attemptIds, b.attemptIds] });
    expect(Number.isNaN(Date.parse(merge.decision.at))).toBe(false);
    const rows = async () =>
      (await exportOf(["clusters"]))
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l) as { name: string; attemptIds: string[] });
    const ab = (await rows()).find((x) => x.name === "ab")!;
    expect([...ab.attemptIds].sort()).toEqual([...a.attemptIds, ...b.attemptIds].sort());
    const moved = [c.attemptIds[0]!];
    const split = await decided(["split", c.id, ...moved, "--name", "c-split"]);
    expect(split.decision).toMatchObject({ op: "split", attemptIds: moved });
    expect((await rows()).find((x) => x.name === "c-split")?.attemptIds).toEqual(moved);
    const ex = await decided(["exclude", ab.attemptIds[0]!, "--reason", "not ours"]);
    expect(ex.decision).toMatchObject({ op: "exclude", attemptIds: [ab.attemptIds[0]] });
    const labels = (await exportOf(["labels"]))
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { attemptId: string });
    expect((await rows()).some((x) => x.attemptIds.includes(ab.attemptIds[0]!))).toBe(false);
    expect(labels.length).toBe(mined.labels.length);
  });
});
