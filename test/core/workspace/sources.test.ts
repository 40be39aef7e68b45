import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { coveredBy, resolveSources, sourceEntry } from "../../../src/core/workspace/sources.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "fire-sources-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("resolveSources", () => {
  it("treats a missing traces/ as an empty workspace", async () => {
    expect(await resolveSources(dir, ["traces/"])).toEqual({ paths: [], errors: [] });
  });

  it("reports a missing source and a glob matching nothing, once each", async () => {
    const r = await resolveSources(dir, ["gone/", "runs/*.jsonl"]);
    expect(r.paths).toEqual([]);
    expect(r.errors.map((e) => e.format())).toEqual([
      "gone/: source not readable: no such file or directory",
      "runs/*.jsonl: glob matches nothing",
    ]);
  });

  it("expands globs in sorted order and drops repeats", async () => {
    await mkdir(join(dir, "runs"));
    await writeFile(join(dir, "runs", "b.jsonl"), "");
    await writeFile(join(dir, "runs", "a.jsonl"), "");
    const r = await resolveSources(dir, ["runs/*.jsonl", "runs/a.jsonl"]);
    expect(r.paths).toEqual([join(dir, "runs", "a.jsonl"), join(dir, "runs", "b.jsonl")]);
    expect(r.errors).toEqual([]);
  });
});

describe("source entries", () => {
  it("are relative inside the workspace and absolute outside", () => {
    expect(sourceEntry("/w", "/w/traces/x")).toBe("traces/x");
    expect(sourceEntry("/w", "/elsewhere/x")).toBe("/elsewhere/x");
  });

  it("detect a path already covered by a folder source", () => {
    expect(coveredBy("/w", ["traces/"], "/w/traces/a/b")).toBe(true);
    expect(coveredBy("/w", ["traces/"], "/w/tracesX")).toBe(false);
    expect(coveredBy("/w", ["traces/*"], "/w/traces/a")).toBe(false);
  });
});
