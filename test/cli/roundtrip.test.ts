import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Attempt } from "../../src/core/model/attempt.js";
import { fireIn, runFire } from "../helpers/cli.js";
import { fixture } from "../helpers/paths.js";

let root: string;
let ws: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "fire-cli-rt-"));
  ws = join(root, "ws");
  await import("node:fs/promises").then((fs) => fs.mkdir(ws));
  const r = await fireIn(["import", fixture("harbor-openclaw"), "--json", "--workspace", ws]);
  expect(r.status).toBe(0);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

interface Row {
  id: string;
  taskId: string;
  outcome: string;
  reward: number | null;
  agent: string | null;
  model: string | null;
  format: string;
  nEvents: number;
}

const rows = async (args: string[] = []): Promise<Row[]> => {
  const r = await fireIn(["attempts", "--json", "--workspace", ws, ...args]);
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as Row[];
};

describe("attempts, show, export", () => {
  it("lists every attempt with its summary fields", async () => {
    const all = await rows();
    expect(all).toHaveLength(15);
    expect(Object.keys(all[0]!).sort()).toEqual(
      ["agent", "format", "id", "model", "nEvents", "outcome", "reward", "taskId"].sort(),
    );
    expect(new Set(all.map((r) => r.format))).toEqual(new Set(["harbor-trial"]));
    expect(all.every((r) => r.outcome !== "pass")).toBe(true);
    expect(all.every((r) => r.nEvents > 0)).toBe(true);
    expect(new Set(all.map((r) => r.id)).size).toBe(15);
  });

  it("filters by --task and --failed", async () => {
    const all = await rows();
    const task = all[0]!.taskId;
    const same = await rows(["--task", task]);
    expect(same.length).toBe(all.filter((r) => r.taskId === task).length);
    expect(same.every((r) => r.taskId === task)).toBe(true);
    const failed = await rows(["--failed"]);
    expect(failed.map((r) => r.id)).toEqual(
      all.filter((r) => ["fail", "error", "timeout"].includes(r.outcome)).map((r) => r.id),
    );
    expect(await rows(["--task", "no-such-task"])).toEqual([]);
  });

  it("prints a table with one line per attempt", async () => {
    const r = await fireIn(["attempts", "--workspace", ws]);
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^id\s+task\s+outcome\s+reward\s+events\s+agent\s+model\s+format$/);
    expect(lines).toHaveLength(2 + 15 + 1);
    expect(lines.at(-1)).toBe("15 of 15 attempts");
  });

  it("shows one attempt in full, as JSON and as text", async () => {
    const first = (await rows())[0]!;
    const r = await fireIn(["show", first.id, "--json", "--workspace", ws]);
    expect(r.status).toBe(0);
    const a = JSON.parse(r.stdout) as Attempt;
    expect(a.id).toBe(first.id);
    expect(a.events).toHaveLength(first.nEvents);
    const text = await fireIn(["show", first.id, "--workspace", ws]);
    expect(text.stdout).toContain(`attempt  ${first.id}`);
    expect(text.stdout).toContain(`events (${first.nEvents}):`);
    const missing = await fireIn(["show", "zzz-no-such-id", "--workspace", ws]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe(
      "fire: zzz-no-such-id: no attempt with this id (see `fire attempts`)\n",
    );
  });

  it("exports fire JSONL whose import equals the original attempts", async () => {
    const out = join(root, "all.jsonl");
    const e = await fireIn(["export", "--out", out, "--workspace", ws]);
    expect(e.status).toBe(0);
    expect(e.stderr).toContain(`exported 15 attempts to ${out}`);
    const exported = await readFile(out, "utf8");
    expect(exported.trimEnd().split("\n")).toHaveLength(15);
    const stdoutExport = await fireIn(["export", "--workspace", ws]);
    expect(stdoutExport.stdout).toBe(exported);

    const ws2 = join(root, "ws2");
    await import("node:fs/promises").then((fs) => fs.mkdir(ws2));
    const imp = await fireIn(["import", out, "--json", "--workspace", ws2]);
    expect(JSON.parse(imp.stdout)).toEqual({
      attempts: 15,
      byFormat: { "harbor-trial": 15 },
      errors: [],
    });
    // every attempt, whole and in order: the export of the re-import is byte-identical
    const lines = (t: string) =>
      t
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l) as Attempt);
    expect(lines((await fireIn(["export", "--workspace", ws2])).stdout)).toEqual(lines(exported));
    expect((await fireIn(["export", "--workspace", ws2])).stdout).toBe(exported);
  });

  // Spawned: worker-thread parsing exists only in the built CLI (dist/), so this case also
  // checks that the built `fire` imports and exports what the in-process runs above did.
  it("parsing in worker threads gives exactly the attempts parsed in-thread", async () => {
    const ws3 = join(root, "ws3");
    await import("node:fs/promises").then((fs) => fs.mkdir(ws3));
    const env = { FIRE_PARSE_WORKERS_AFTER: "0" };
    const imp = runFire(["import", fixture("harbor-openclaw"), "--json", "--workspace", ws3], {
      env,
    });
    expect(JSON.parse(imp.stdout).attempts).toBe(15);
    const viaWorkers = runFire(["export", "--workspace", ws3], { env }).stdout;
    expect(viaWorkers).toBe((await fireIn(["export", "--workspace", ws])).stdout);
    // the workers wrote one cache entry per unit (into the cache's shard files)
    const fs = await import("node:fs/promises");
    const cacheDir = join(ws3, ".fire", "cache", "parse");
    const shards = (await fs.readdir(cacheDir)).filter((e) => e.endsWith(".jsonl"));
    const texts = await Promise.all(shards.map((e) => fs.readFile(join(cacheDir, e), "utf8")));
    const headers = texts.flatMap((t) => t.split("\n").filter((l) => l.startsWith('{"v":')));
    expect(headers).toHaveLength(15);
  });
});
