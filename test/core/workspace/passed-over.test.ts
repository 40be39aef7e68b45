import { cpSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { knownUnits } from "../../../src/core/ingest/discover.js";
import { readHead, storedDigest } from "../../../src/core/workspace/head.js";
import { loadWorkspace } from "../../../src/core/workspace/load.js";
import { openCurrentWorkspace } from "../../../src/core/workspace/open.js";
import { REPO_ROOT } from "../../helpers/paths.js";

/** Real SlopCodeBench checkpoints (test/fixtures/checkpoint-run-open-plan, README there). */
const CHECKPOINTS = resolve(REPO_ROOT, "test/fixtures/checkpoint-run-open-plan");

let ws: string;
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), "fire-passed-over-"));
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

describe("a source folder that keeps a run's own summary beside its trials", () => {
  it("remembers the summary as no unit, so a warm read needs no discovery", async () => {
    const run = join(ws, "run");
    cpSync(CHECKPOINTS, run, { recursive: true });
    // a run-level summary file of the harness: no trace, reported as an unknown format
    const summary = join(run, "summary.json");
    writeFileSync(summary, JSON.stringify({ num_problems: 2, num_checkpoints: 2 }));
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(summary, old, old);
    writeFileSync(join(ws, "fire.config.json"), JSON.stringify({ sources: ["run"] }));

    const loaded = await loadWorkspace(ws);
    expect(loaded.attempts).toHaveLength(2);
    expect(loaded.errors.map((e) => e.file)).toEqual([summary]);
    expect(loaded.passedOver?.map(([p]) => p)).toEqual([summary]);

    const digest = storedDigest(ws) as string;
    expect(readHead(ws, digest)?.passedOver?.map(([p]) => p)).toEqual([summary]);
    let stale: string | undefined;
    const warm = await openCurrentWorkspace(ws, { onStale: (why) => (stale = why) });
    expect(stale).toBeUndefined();
    expect([...(warm.index?.passedOver.keys() ?? [])]).toEqual([summary]);
    expect(warm.errors.map((e) => e.file)).toEqual([summary]);
    // the units as the index has them, told from the index's lists alone
    const index = warm.index;
    if (!index) throw new Error("not opened from the index");
    const known = await knownUnits(
      [run],
      index.unitPaths,
      index.writtenMs,
      index.outside,
      index.passedOver,
    );
    expect(known?.map((u) => u.path).sort()).toEqual([...index.unitPaths].sort());
  });
  it("takes the harness's own run summaries for part of its layout, not errors", async () => {
    const run = join(ws, "run");
    cpSync(CHECKPOINTS, run, { recursive: true });
    // the names and shapes a SlopCodeBench run writes beside its problem folders
    writeFileSync(join(run, "result.json"), JSON.stringify({ num_checkpoints: 2 }));
    writeFileSync(join(run, "problem_catalog.json"), JSON.stringify({ version: "v1.0" }));
    writeFileSync(
      join(run, "checkpoint_results.jsonl"),
      '{"problem": "l2m", "checkpoint": "checkpoint_1", "delta.loc": Infinity}\n',
    );
    // the same name in a folder with no checkpoint folders below it is still reported
    cpSync(join(run, "result.json"), join(ws, "result.json"));
    writeFileSync(
      join(ws, "fire.config.json"),
      JSON.stringify({ sources: ["run", "result.json"] }),
    );
    const loaded = await loadWorkspace(ws);
    expect(loaded.attempts).toHaveLength(2);
    expect(loaded.errors.map((e) => e.file)).toEqual([join(ws, "result.json")]);
    expect((loaded.passedOver ?? []).map(([p]) => p).sort()).toEqual(
      ["checkpoint_results.jsonl", "problem_catalog.json", "result.json"]
        .map((f) => join(run, f))
        .concat(join(ws, "result.json"))
        .sort(),
    );
  });
});
