import { cpSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { discoverUnits, type SourceUnit } from "../../../src/core/ingest/discover.js";
import { fixture } from "../../helpers/paths.js";

async function units(paths: string[]): Promise<{ units: SourceUnit[]; errors: string[] }> {
  const out = { units: [] as SourceUnit[], errors: [] as string[] };
  for await (const it of discoverUnits(paths)) {
    if (it.type === "unit") out.units.push(it.unit);
    else out.errors.push(it.error.format());
  }
  return out;
}

describe("discoverUnits", () => {
  let tmp: string;
  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), "fire-discover-"));
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it("finds every fixture set by content, each Harbor trial once (inner files are not re-imported)", async () => {
    const got = await units([
      fixture("harbor-openclaw"),
      fixture("atif-golden"),
      fixture("codex-rollouts-redacted"),
    ]);
    expect(got.errors).toEqual([]);
    const count = (f: string) => got.units.filter((u) => u.format === f).length;
    expect(count("harbor-trial")).toBe(15);
    expect(count("atif")).toBe(3);
    expect(count("codex-rollout")).toBe(4);
    expect(got.units.every((u) => u.isDirectory === (u.format === "harbor-trial"))).toBe(true);
  });

  it("detects by content, not by name, and skips README/markdown/manifest quietly", async () => {
    const dir = join(tmp, "named");
    mkdirSync(dir);
    cpSync(fixture("real-clients/claude-rm-deny/session.jsonl"), join(dir, "claude.data"));
    cpSync(fixture("real-clients/codex-rm-deny/session.jsonl"), join(dir, "something.log.jsonl"));
    cpSync(fixture("atif-golden/hello-world-timeout.trajectory.json"), join(dir, "run-output"));
    writeFileSync(join(dir, "README"), "about these traces");
    writeFileSync(join(dir, "notes.md"), "# notes");
    writeFileSync(join(dir, "manifest.json"), '{"generator":"fire gen","files":3}');
    const got = await units([dir]);
    expect(got.errors).toEqual([]);
    expect(got.units.map((u) => [u.path.slice(dir.length + 1), u.format])).toEqual([
      ["claude.data", "claude-transcript"],
      ["run-output", "atif"],
      ["something.log.jsonl", "codex-rollout"],
    ]);
  });

  it("reports the side logs of real-clients once each, naming what they are", async () => {
    const got = await units([
      fixture("real-clients/claude-rm-deny"),
      fixture("real-clients/codex-rm-deny"),
    ]);
    expect(got.units.map((u) => u.format)).toEqual(["claude-transcript", "codex-rollout"]);
    const reason = (dir: string, file: string) =>
      got.errors
        .find((e) => e.startsWith(`${fixture("real-clients", dir, file)}: `))
        ?.split(": ")
        .slice(1)
        .join(": ");
    expect(got.errors).toHaveLength(6);
    expect(reason("claude-rm-deny", "client-stdout.jsonl")).toMatch(
      /^unknown format: Claude Code stream-json output/,
    );
    expect(reason("codex-rm-deny", "client-stdout.jsonl")).toMatch(
      /^unknown format: `codex exec --json` output/,
    );
    expect(reason("claude-rm-deny", "hook-events.jsonl")).toMatch(
      /^unknown format: a log of hook inputs/,
    );
    expect(reason("codex-rm-deny", "requests.summary.jsonl")).toMatch(
      /^unknown JSONL format \(expected a Harbor trial/,
    );
  });

  it("changes a folder unit's stamp when any file inside changes, and only then", async () => {
    const trial = join(tmp, "trial");
    cpSync(fixture("harbor-openclaw/pinchbench-147-kimi2.6/task-calendar__8A83BnJ"), trial, {
      recursive: true,
    });
    const a = (await units([trial])).units[0]!;
    const b = (await units([trial])).units[0]!;
    expect(a.format).toBe("harbor-trial");
    expect(b.stamp).toBe(a.stamp);
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(trial, "verifier", "test-stdout.txt"), later, later);
    const c = (await units([trial])).units[0]!;
    expect(c.stamp).not.toBe(a.stamp);
  });

  it("reports a missing path once and an explicitly named non-trace file", async () => {
    writeFileSync(join(tmp, "plain.txt"), "hello");
    const got = await units([join(tmp, "nope"), join(tmp, "plain.txt")]);
    expect(got.units).toEqual([]);
    expect(got.errors).toEqual([
      `${join(tmp, "nope")}: unreadable: file not found`,
      `${join(tmp, "plain.txt")}: unknown file format (expected a Harbor trial, ATIF, Claude Code transcript, Codex rollout, Terminal-Bench run, Inspect AI eval log, mini-SWE-agent trajectory or fire JSONL)`,
    ]);
  });
});
