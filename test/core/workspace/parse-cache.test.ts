import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InputError } from "../../../src/core/errors.js";
import { Attempt } from "../../../src/core/model/attempt.js";
import {
  cacheFile,
  readCacheEntry,
  writeCacheEntry,
} from "../../../src/core/workspace/parse-cache.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "fire-cache-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const attempt = Attempt.parse({
  id: "t1#1",
  source: { format: "atif", path: "/w/t1/trajectory.json" },
  taskId: "t1",
  taskText: "fix it",
  outcome: "fail",
  reward: 0,
  events: [{ index: 0, kind: "tool_call", tool: "Bash", command: "ls -la", callId: "c1" }],
});
const key = { path: "/w/t1", stamp: "100:1700000000", options: '{"p":1,"c":8000}' };
const result = { attempts: [attempt], errors: [new InputError("/w/t1/x.jsonl", 4, "bad JSON")] };

describe("parse cache", () => {
  it("returns exactly what was written for the same path, stamp and options", async () => {
    await writeCacheEntry(dir, key, result);
    const hit = await readCacheEntry(dir, key);
    expect(hit?.attempts).toEqual([attempt]);
    expect(hit?.errors.map((e) => e.format())).toEqual(["/w/t1/x.jsonl:4: bad JSON"]);
  });

  it("misses when the stamp or the options differ", async () => {
    await writeCacheEntry(dir, key, result);
    expect(await readCacheEntry(dir, { ...key, stamp: "101:1700000001" })).toBeUndefined();
    expect(await readCacheEntry(dir, { ...key, options: '{"p":0.5,"c":8000}' })).toBeUndefined();
  });

  it("ignores a corrupt or truncated entry, and a rewrite replaces it", async () => {
    await writeCacheEntry(dir, key, result);
    const file = cacheFile(dir, key.path);
    const text = await readFile(file, "utf8");
    await writeFile(file, text.slice(0, text.length - 20));
    expect(await readCacheEntry(dir, key)).toBeUndefined();
    await writeFile(file, text.replace('"outcome":"fail"', '"outcome":"maybe"'));
    expect(await readCacheEntry(dir, key)).toBeUndefined();
    await writeCacheEntry(dir, key, result);
    expect((await readCacheEntry(dir, key))?.attempts).toHaveLength(1);
  });

  it("keeps units that share a shard apart: a garbled entry of one leaves the other served", async () => {
    let other = "/w/t2";
    for (let n = 3; cacheFile(dir, other) !== cacheFile(dir, key.path); n++) other = `/w/t${n}`;
    const otherKey = { ...key, path: other };
    await writeCacheEntry(dir, key, result);
    await writeCacheEntry(dir, otherKey, { attempts: [attempt], errors: [] });
    const file = cacheFile(dir, key.path);
    const lines = (await readFile(file, "utf8")).split("\n");
    const header = lines.findIndex((l) => l.startsWith('{"v":') && l.includes('"path":"/w/t1"'));
    lines[header + 1] = '{"a":{"broken":true}}';
    await writeFile(file, lines.join("\n"));
    expect(await readCacheEntry(dir, key)).toBeUndefined();
    expect((await readCacheEntry(dir, otherKey))?.attempts).toEqual([attempt]);
    // a newer entry for the same path wins over the garbled one
    await writeCacheEntry(dir, key, result);
    expect((await readCacheEntry(dir, key))?.attempts).toEqual([attempt]);
  });
});
