import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { triageView } from "../../../src/core/mine/triage-view.js";
import { saveConfig } from "../../../src/core/workspace/config.js";
import { entrySpans, type UnitRef } from "../../../src/core/workspace/event-store.js";
import { indexFile, storedDigest } from "../../../src/core/workspace/index-file.js";
import { loadWorkspace } from "../../../src/core/workspace/load.js";
import { isIndexCurrent, openWorkspace } from "../../../src/core/workspace/open.js";
import { workspacePaths } from "../../../src/core/workspace/paths.js";
import { readStamped } from "../../../src/core/workspace/stamped-cache.js";
import { demandLines } from "../../helpers/demanding.js";
import { fixture } from "../../helpers/paths.js";

let ws: string;

beforeEach(async () => {
  ws = await mkdtemp(join(tmpdir(), "fire-index-"));
  await mkdir(join(ws, "traces"));
  await cp(fixture("codex-rollouts-redacted"), join(ws, "traces", "codex"), { recursive: true });
  await cp(fixture("atif-golden"), join(ws, "traces", "atif"), { recursive: true });
});
afterEach(async () => {
  await rm(ws, { recursive: true, force: true });
});

/** Attempts as plain data with sorted keys (the index stores fields in another order). */
const canonical = (x: unknown): string =>
  JSON.stringify(x, (_k, v) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );

const withoutStats = (text: string) => ({ ...JSON.parse(text), stats: undefined });

describe("workspace index", () => {
  it("keeps the faults a whole task shows, so triage from it reads no verifier output", async () => {
    const lines = demandLines(["worker.bin", "worker.bin"]);
    await writeFile(join(ws, "traces", "demand.jsonl"), `${lines.join("\n")}\n`);
    const full = await loadWorkspace(ws);
    const a = await triageView(full);
    const ids = (t: typeof a.triage) =>
      t.exclusions.filter((e) => /never names/.test(e.detail)).map((e) => e.attemptId);
    expect(ids(a.triage)).toEqual(["demand-a", "demand-b"]);
    const warm = await openWorkspace(ws);
    expect(warm.index?.faults.get("demand-a")?.code).toBe("hidden-spec-mismatch");
    const b = await triageView(warm);
    expect(ids(b.triage)).toEqual(["demand-a", "demand-b"]);
  });

  it("a cold open holds no events: it gives what a full load gives, read from the cache", async () => {
    const lines = demandLines(["worker.bin", "worker.bin"]);
    await writeFile(join(ws, "traces", "demand.jsonl"), `${lines.join("\n")}\n`);
    const full = await loadWorkspace(ws);
    await rm(workspacePaths(ws).cache, { recursive: true, force: true });
    const cold = await openReading(ws);
    expect(cold.read).toBeGreaterThan(0);
    const lazy = cold.ws.attempts.filter(
      (a) => Object.getOwnPropertyDescriptor(a, "events")?.get !== undefined,
    );
    expect(lazy.length).toBe(full.attempts.length); // every unit went to the cache
    expect(cold.ws.index?.file).toBe(indexFile(ws));
    expect(cold.ws.index?.eventCounts.get("demand-a")).toBe(2);
    // the task-wide fault was read without keeping the verifier's output
    expect(cold.ws.index?.faults.get("demand-b")?.code).toBe("hidden-spec-mismatch");
    expect(JSON.stringify(cold.ws.attempts)).toBe(JSON.stringify(full.attempts));
    expect((await triageView(cold.ws)).triage).toEqual((await triageView(full)).triage);
    // what the next open reads from the index is what this one gave
    const warm = await openReading(ws);
    expect(warm.read).toBe(0);
    expect(canonical(warm.ws.attempts)).toBe(canonical(cold.ws.attempts));
    expect([...(warm.ws.index?.faults ?? [])]).toEqual([...(cold.ws.index?.faults ?? [])]);
  });

  it("a cold open whose index cannot be written still reads the events from the cache", async () => {
    const full = await loadWorkspace(ws);
    await rm(workspacePaths(ws).cache, { recursive: true, force: true });
    await mkdir(indexFile(ws), { recursive: true }); // a folder where the index goes
    const cold = await openReading(ws);
    expect(cold.read).toBeGreaterThan(0);
    expect(cold.ws.index).toBeUndefined();
    expect(JSON.stringify(cold.ws.attempts)).toBe(JSON.stringify(full.attempts));
    expect((await triageView(cold.ws)).triage).toEqual((await triageView(full)).triage);
  });

  it("a cold open keeps whole a unit that repeats an id (its entry is read back by id)", async () => {
    const twin = (command: string, reward: number) =>
      JSON.stringify({
        id: "twin",
        source: { format: "fire-jsonl", path: "traces/twins.jsonl" },
        taskId: "t",
        taskText: "do it",
        outcome: "fail",
        reward,
        events: [{ index: 0, kind: "tool_call", tool: "bash", command, callId: "c" }],
      });
    for (const rewards of [
      [0, 0],
      [0, 0.5],
    ]) {
      await rm(join(ws, ".fire"), { recursive: true, force: true });
      const lines = [twin("echo 1", rewards[0]!), twin("echo 2", rewards[1]!)];
      await writeFile(join(ws, "traces", "twins.jsonl"), `${lines.join("\n")}\n`);
      const full = await loadWorkspace(ws, { sources: ["traces/"] }); // writes no index
      await rm(join(ws, ".fire"), { recursive: true, force: true });
      const cold = await openReading(ws);
      expect(cold.read).toBeGreaterThan(0);
      const twins = (attempts: typeof full.attempts) =>
        attempts
          .filter((a) => a.id.startsWith("twin"))
          .map((a) => [a.id.replace(/~.*/, "~"), a.events[0]?.command]);
      expect(twins(cold.ws.attempts)).toEqual(twins(full.attempts));
      expect(twins(cold.ws.attempts)).toEqual([
        ["twin", "echo 1"],
        ["twin~", "echo 2"],
      ]);
    }
  });

  it("a load cancelled while units wait to be read caches none of them as read", async () => {
    for (let i = 0; i < 12; i++)
      await writeFile(
        join(ws, "traces", `f${i}.jsonl`),
        `${[0, 1, 2]
          .map((k) =>
            JSON.stringify({
              id: `a${i}-${k}`,
              source: { format: "fire-jsonl", path: `traces/f${i}.jsonl` },
              taskId: "t",
              taskText: "do it",
              outcome: "fail",
              reward: 0,
              events: [{ index: 0, kind: "message", role: "agent", input: "x".repeat(50_000) }],
            }),
          )
          .join("\n")}\n`,
      );
    const whole = (await loadWorkspace(ws, { sources: ["traces/"] })).attempts.length;
    for (const at of [1, 3]) {
      await rm(join(ws, ".fire"), { recursive: true, force: true });
      const stop = new AbortController();
      await expect(
        openWorkspace(ws, {
          signal: stop.signal,
          onProgress: (p) => {
            if (p.done === at) stop.abort();
          },
        }),
      ).rejects.toThrow();
      const again = await openReading(ws);
      expect(again.ws.attempts.length, `cancelled after ${at}`).toBe(whole);
    }
  });

  it("a full load writes it; an open from it gives the same attempts and triage", async () => {
    const full = await loadWorkspace(ws);
    expect(full.index).toBeUndefined();
    expect(storedDigest(ws)).toMatch(/^[0-9a-f]{64}$/);
    const warm = await openWorkspace(ws);
    expect(warm.index?.file).toBe(indexFile(ws));
    expect(warm.attempts.map((a) => a.id)).toEqual(full.attempts.map((a) => a.id));
    // events and verifier details are read from the parse cache when first touched; the
    // fields keep the parsed order, so hashes of an attempt (the label cache's) agree
    expect(JSON.stringify(warm.attempts)).toBe(JSON.stringify(full.attempts));
    expect(warm.errors.map((e) => e.format())).toEqual(full.errors.map((e) => e.format()));
    const a = await triageView(full);
    const b = await triageView(warm);
    expect(b.inputs.knownFaults?.size).toBe(full.attempts.length);
    expect(b.triage).toEqual(a.triage);
  });

  it("is found stale when a source changes, and not used under other fault markers", async () => {
    await loadWorkspace(ws);
    const warm = await openWorkspace(ws);
    expect(await isIndexCurrent(warm)).toBe(true);
    const extra = (await readdir(join(ws, "traces", "codex"))).find((n) => n.endsWith(".jsonl"))!;
    await cp(join(ws, "traces", "codex", extra), join(ws, "traces", `copy-${extra}`));
    expect(await isIndexCurrent(warm)).toBe(false);

    await saveConfig(ws, {
      sources: ["traces/"],
      mining: { verifierFaultMarkers: ["sandbox exploded"] },
    });
    const other = await openReading(ws);
    expect(other.read).toBeGreaterThan(0); // the sources were read (and a new index written)
    expect(other.ws.index).toBeDefined(); // … and it serves the workspace it gave
    const again = await openReading(ws);
    expect(again.read).toBe(0);
    expect(again.ws.index).toBeDefined();
  });

  it("is read fully and written again when it is corrupt, of another layout or tampered", async () => {
    const full = await loadWorkspace(ws);
    const good = await readFile(indexFile(ws), "utf8");
    const damaged: [string, string][] = [
      ["truncated", good.slice(0, good.length >> 1)],
      ["an older layout", good.replace(/^\{"v":\d+/, '{"v":2')],
      ["an outcome outside the model", good.replace(/"(fail|unknown|pass)"/, '"bogus"')],
      ["an attempt in no unit", good.replace(/"unit":\[\d+/, '"unit":[99999')],
      ["an error list of another shape", good.replace(/"errors":\[[^\]]*\]/, '"errors":[null]')],
      ["counts of another shape", good.replace(/"stats":\{"units":\d+/, '"stats":{"units":"many"')],
    ];
    for (const [what, text] of damaged) {
      expect(text, what).not.toBe(good);
      await writeFile(indexFile(ws), text);
      const { ws: opened, read } = await openReading(ws);
      expect(read, what).toBeGreaterThan(0); // not trusted: the sources were read
      expect(JSON.stringify(opened.attempts), what).toBe(JSON.stringify(full.attempts));
      // and it is rebuilt (its read statistics aside: the units now came from the parse cache)
      expect(withoutStats(await readFile(indexFile(ws), "utf8")), what).toEqual(withoutStats(good));
      const again = await openReading(ws);
      expect(again.read, what).toBe(0);
      expect(again.ws.index, what).toBeDefined();
    }
  });

  it("names the unit when the events are gone from the parse cache", async () => {
    await loadWorkspace(ws);
    const warm = await openWorkspace(ws);
    await rm(workspacePaths(ws).parseCache, { recursive: true, force: true });
    const a = warm.attempts[0]!;
    expect(a.taskId).toBeTruthy(); // the index part needs no cache
    expect(() => a.events).toThrow(/cannot read the events: its parse-cache entry is gone/);
  });

  it("records where a load wrote each entry, as reading the shards back finds it", async () => {
    await loadWorkspace(ws);
    // a second load appends to shards that already hold entries: a new unit, a changed one
    const codex = join(ws, "traces", "codex");
    const name = (await readdir(codex)).find((n) => n.endsWith(".jsonl"))!;
    await cp(join(codex, name), join(ws, "traces", `copy-${name}`));
    await writeFile(join(codex, name), `${await readFile(join(codex, name), "utf8")}\n`);
    const second = await loadWorkspace(ws);
    expect(second.stats.parsed).toBe(2);
    const units = (readStamped(indexFile(ws)).value as { units: UnitRef[] }).units;
    const scanned = entrySpans(workspacePaths(ws).parseCache);
    expect(units.length).toBeGreaterThan(2);
    for (const u of units) expect(u.span, u.path).toEqual(scanned.get(u.path));
  });

  it("reads the events of a moved entry from its whole shard", async () => {
    await loadWorkspace(ws);
    const warm = await openWorkspace(ws);
    const full = await loadWorkspace(ws, { sources: ["traces/"] });
    // rewrite every shard with a blank line in front: every recorded span is now off
    const dir = workspacePaths(ws).parseCache;
    const { readFile } = await import("node:fs/promises");
    for (const name of await readdir(dir)) {
      const f = join(dir, name);
      await writeFile(f, `\n\n${await readFile(f, "utf8")}`);
    }
    expect(canonical(warm.attempts.map((a) => a.events))).toBe(
      canonical(full.attempts.map((a) => a.events)),
    );
  });
});

/** Opens a workspace, counting the source units it read (none: it was opened from its index). */
async function openReading(dir: string) {
  let read = 0;
  const ws = await openWorkspace(dir, {
    onProgress: () => {
      read++;
    },
  });
  return { ws, read };
}
