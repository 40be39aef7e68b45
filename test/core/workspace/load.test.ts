import { cp, mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { serializeAttempt } from "../../../src/core/ingest/fire-jsonl.js";
import { saveConfig } from "../../../src/core/workspace/config.js";
import { type LoadProgress, loadWorkspace } from "../../../src/core/workspace/load.js";
import { cacheFile } from "../../../src/core/workspace/parse-cache.js";
import { fixture } from "../../helpers/paths.js";

let ws: string;
const ATIF = [
  "hello-world-timeout",
  "hello-world-invalid-json",
  "hello-world-context-summarization",
];

beforeEach(async () => {
  ws = await mkdtemp(join(tmpdir(), "fire-load-"));
  await mkdir(join(ws, "traces"));
  for (const name of ATIF) {
    await cp(
      fixture("atif-golden", `${name}.trajectory.json`),
      join(ws, "traces", `${name}.trajectory.json`),
    );
  }
});
afterEach(async () => {
  await rm(ws, { recursive: true, force: true });
});

async function load(): Promise<{
  w: Awaited<ReturnType<typeof loadWorkspace>>;
  seen: LoadProgress[];
}> {
  const seen: LoadProgress[] = [];
  const w = await loadWorkspace(ws, { onProgress: (p) => seen.push(p) });
  return { w, seen };
}

describe("loadWorkspace", () => {
  it("reads every unit once, then serves all of them from the parse cache", async () => {
    const first = await load();
    expect(first.w.stats).toMatchObject({ units: 3, parsed: 3, cached: 0 });
    expect(first.w.errors).toEqual([]);
    expect(first.w.attempts.length).toBeGreaterThanOrEqual(3);
    expect(first.w.byFormat.atif).toBe(first.w.attempts.length);
    expect(first.seen.map((p) => p.done)).toEqual([1, 2, 3]);
    expect(first.seen.at(-1)?.total).toBe(3);
    expect(first.seen.every((p) => p.total === undefined || p.total === 3)).toBe(true);

    const second = await load();
    expect(second.w.stats).toMatchObject({ units: 3, parsed: 0, cached: 3 });
    expect(second.w.attempts).toEqual(first.w.attempts);
  });

  it("re-parses only the unit whose file changed", async () => {
    const first = await load();
    const touched = join(ws, "traces", "hello-world-timeout.trajectory.json");
    const later = new Date(Date.now() + 60_000);
    await utimes(touched, later, later);
    const parsedPaths: string[] = [];
    const again = await loadWorkspace(ws, {
      onProgress: (p) => parsedPaths.push(p.path),
    });
    expect(again.stats).toMatchObject({ units: 3, parsed: 1, cached: 2 });
    expect(parsedPaths).toHaveLength(3);
    expect(again.attempts).toEqual(first.w.attempts);
  });

  it("ignores a corrupt cache entry and rebuilds it", async () => {
    const first = await load();
    const cacheDir = join(ws, ".fire", "cache", "parse");
    const unit = join(ws, "traces", `${ATIF[0]}.trajectory.json`);
    const shard = cacheFile(cacheDir, unit);
    const text = await readFile(shard, "utf8");
    // garble the attempt line of this one unit's entry; the shard may hold others too
    const lines = text.split("\n");
    const header = lines.findIndex((l) => l.startsWith('{"v":') && l.includes(ATIF[0]!));
    expect(header).toBeGreaterThanOrEqual(0);
    lines[header + 1] = "{ this is not a cache entry";
    await writeFile(shard, lines.join("\n"));
    const second = await load();
    expect(second.w.stats).toMatchObject({ parsed: 1, cached: 2 });
    expect(second.w.attempts).toEqual(first.w.attempts);
    const third = await load();
    expect(third.w.stats).toMatchObject({ parsed: 0, cached: 3 });
  });

  it("keeps the cache in a few shard files and compacts superseded entries away", async () => {
    await load();
    const cacheDir = join(ws, ".fire", "cache", "parse");
    const shards = (await readdir(cacheDir)).filter((n) => n.endsWith(".jsonl"));
    expect(shards.length).toBeGreaterThanOrEqual(1);
    expect(shards.length).toBeLessThanOrEqual(3);
    expect(shards.every((n) => /^shard-[0-9a-f]{2}\.jsonl$/.test(n))).toBe(true);
    const unit = join(ws, "traces", `${ATIF[0]}.trajectory.json`);
    const headers = async () =>
      (await readFile(cacheFile(cacheDir, unit), "utf8"))
        .split("\n")
        .filter((l) => l.startsWith('{"v":') && l.includes(ATIF[0]!)).length;
    expect(await headers()).toBe(1);
    // every changed stamp appends a new entry; old ones go once they outweigh the live ones
    const counts: number[] = [];
    for (let i = 1; i <= 40 && !counts.includes(1); i++) {
      const t = new Date(Date.now() + i * 60_000);
      await utimes(unit, t, t);
      const r = await loadWorkspace(ws);
      expect(r.stats).toMatchObject({ parsed: 1, cached: 2 });
      counts.push(await headers());
    }
    expect(counts.slice(0, 3)).toEqual([2, 3, 4]);
    expect(counts.at(-1)).toBe(1);
    const last = await loadWorkspace(ws);
    expect(last.stats).toMatchObject({ parsed: 0, cached: 3 });
  });

  it("re-parses everything when a setting that shapes attempts changes", async () => {
    await load();
    await saveConfig(ws, { outputCap: 50 });
    const again = await load();
    expect(again.w.stats).toMatchObject({ parsed: 3, cached: 0 });
    const outputs = again.w.attempts.flatMap((a) => a.events.map((e) => e.output ?? ""));
    expect(Math.max(...outputs.map((o) => o.length))).toBeLessThanOrEqual(50);
  });

  it("keeps the first of two attempts with the same id and sorts by task then id", async () => {
    const { w } = await load();
    const lines = w.attempts.map((a) => serializeAttempt(a)).join("\n");
    await writeFile(join(ws, "traces", "copy.jsonl"), `${lines}\n`);
    const again = await loadWorkspace(ws);
    expect(again.attempts).toEqual(w.attempts);
    expect(again.stats.duplicates).toBe(w.attempts.length);
    const keys = again.attempts.map((a) => `${a.taskId}\u0000${a.id}`);
    expect(keys).toEqual([...keys].sort());
  });

  it("keeps one copy of an attempt found at two paths", async () => {
    const { w } = await load();
    const moved = w.attempts.map((a) => ({
      ...a,
      source: { ...a.source, path: "/elsewhere/copy" },
    }));
    await writeFile(
      join(ws, "traces", "moved.jsonl"),
      `${moved.map((a) => serializeAttempt(a)).join("\n")}\n`,
    );
    const again = await loadWorkspace(ws);
    expect(again.attempts).toEqual(w.attempts);
    expect(again.stats.duplicates).toBe(w.attempts.length);
  });

  it("keeps two different attempts that claim one id, the later under a derived id", async () => {
    const { w } = await load();
    const a = w.attempts[0]!;
    const changed = { ...a, taskText: `${a.taskText} (another transcript)` };
    const file = join(ws, "traces", "zz-same-id.jsonl");
    await writeFile(file, `${serializeAttempt(changed)}\n`);
    const again = await loadWorkspace(ws);
    expect(again.attempts).toHaveLength(w.attempts.length + 1);
    expect(again.stats.duplicates).toBe(0);
    const twins = again.attempts.filter((x) => x.id.startsWith(a.id));
    expect(twins.map((x) => x.taskText).sort()).toEqual([a.taskText, changed.taskText].sort());
    const renamed = twins.find((x) => x.id !== a.id)!;
    expect(renamed.id).toMatch(
      new RegExp(`^${a.id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}~[0-9a-f]{8}$`),
    );
    expect(renamed.taskText).toBe(changed.taskText);
    const reopened = await loadWorkspace(ws);
    expect(reopened.attempts.map((x) => x.id)).toEqual(again.attempts.map((x) => x.id));
  });

  it("reports bad lines with file:line and still loads the good ones around them", async () => {
    const { w } = await load();
    const good = serializeAttempt(w.attempts[0]!);
    const file = join(ws, "extra.jsonl");
    await writeFile(
      file,
      `${good}\n{"id": "broken\n${good.replace(w.attempts[0]!.id, "other-id")}\n`,
    );
    const r = await loadWorkspace(ws, { sources: ["extra.jsonl"] });
    expect(r.attempts.map((a) => a.id).sort()).toEqual([w.attempts[0]!.id, "other-id"].sort());
    expect(r.errors.map((e) => `${e.file}:${e.line}`)).toEqual([`${file}:2`]);
  });

  it("uses the sources of fire.config.json and reports a missing one", async () => {
    await saveConfig(ws, { sources: ["traces/hello-world-timeout.trajectory.json", "nowhere/"] });
    const r = await loadWorkspace(ws);
    expect(r.stats.units).toBe(1);
    expect(r.errors.map((e) => e.format())).toEqual([
      "nowhere/: source not readable: no such file or directory",
    ]);
  });

  it("stops with an abort error when the signal is aborted", async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(loadWorkspace(ws, { signal: ac.signal })).rejects.toThrow();
    expect(await readFile(join(ws, "traces", `${ATIF[0]}.trajectory.json`), "utf8")).toContain(
      "steps",
    );
  });
});
