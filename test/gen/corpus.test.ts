import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeCorpus } from "../../src/gen/corpus.js";
import { filesUnder, treeHashes } from "./tree.js";

const dirs: string[] = [];
async function tmp(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), "fire-gen-"));
  dirs.push(d);
  return d;
}
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe("writeCorpus", () => {
  it("writes a mixed corpus of at least the target size, byte-identical for a seed", async () => {
    const [a, b, c] = [await tmp(), await tmp(), await tmp()];
    const opts = {
      seed: 11,
      targetBytes: 1_500_000,
      formats: ["harbor", "claude", "codex"] as const,
    };
    const ra = await writeCorpus({ ...opts, formats: [...opts.formats], outDir: a });
    const rb = await writeCorpus({ ...opts, formats: [...opts.formats], outDir: b });
    await writeCorpus({ ...opts, formats: [...opts.formats], seed: 12, outDir: c });
    expect(ra.bytes).toBeGreaterThanOrEqual(1_500_000);
    expect(ra).toEqual(rb);
    const [ha, hb, hc] = [await treeHashes(a), await treeHashes(b), await treeHashes(c)];
    expect(ha.size).toBe(ra.files);
    expect([...ha.entries()]).toEqual([...hb.entries()]);
    const traces = (h: Map<string, string>) =>
      new Set(
        [...h]
          .filter(([p]) => p.endsWith("trajectory.json") || p.endsWith(".jsonl"))
          .map(([, v]) => v),
      );
    const shared = [...traces(hc)].filter((v) => traces(ha).has(v));
    expect(shared).toEqual([]);
    expect((await filesUnder(a, "trajectory.json")).length).toBeGreaterThan(0);
    expect((await filesUnder(join(a, "claude"), ".jsonl")).length).toBeGreaterThan(0);
    expect((await filesUnder(join(a, "codex"), ".jsonl")).length).toBeGreaterThan(0);
  });

  it("honours the format list and the attempts per task", async () => {
    const d = await tmp();
    const r = await writeCorpus({
      outDir: d,
      seed: 5,
      targetBytes: 200_000,
      formats: ["codex"],
      attemptsPerTask: 3,
    });
    expect(r.attempts % 3).toBe(0);
    const files = await filesUnder(d, ".jsonl");
    expect(files.length).toBe(r.attempts);
    expect((await treeHashes(d)).size).toBe(files.length);
    const first = (await readFile(files[0] as string, "utf8")).split("\n")[0] as string;
    expect(JSON.parse(first).type).toBe("session_meta");
  });

  it("stops when the signal aborts", async () => {
    const d = await tmp();
    const ac = new AbortController();
    ac.abort();
    await expect(
      writeCorpus({
        outDir: d,
        seed: 1,
        targetBytes: 10_000_000,
        formats: ["harbor"],
        signal: ac.signal,
      }),
    ).rejects.toMatchObject({ name: "AbortError" });
    expect(await readdir(d)).toEqual([]);
  });
});
