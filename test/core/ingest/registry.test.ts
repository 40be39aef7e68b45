import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { discoverUnits, type SourceUnit } from "../../../src/core/ingest/discover.js";
import { MAX_ERRORS_PER_FILE, readUnit } from "../../../src/core/ingest/registry.js";
import { DEFAULT_INGEST_OPTIONS, type IngestItem } from "../../../src/core/ingest/types.js";
import { fixture } from "../../helpers/paths.js";

async function read(unit: SourceUnit): Promise<IngestItem[]> {
  const out: IngestItem[] = [];
  for await (const x of readUnit(unit, DEFAULT_INGEST_OPTIONS)) out.push(x);
  return out;
}

describe("readUnit", () => {
  it("yields an error, never throws, for a format without an importer", async () => {
    const items = await read({
      path: "x.jsonl",
      format: "hook-log",
      isDirectory: false,
      stamp: "0",
    });
    expect(items.map((i) => i.type === "error" && i.error.format())).toEqual([
      "x.jsonl: no importer for format hook-log",
    ]);
  });

  it("reports a unit that vanished between discovery and reading", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "fire-registry-"));
    try {
      const trial = join(tmp, "trial");
      cpSync(fixture("harbor-openclaw/pinchbench-147-kimi2.6/task-image-gen__Xvxipd8"), trial, {
        recursive: true,
      });
      const units: SourceUnit[] = [];
      for await (const it of discoverUnits([trial])) if (it.type === "unit") units.push(it.unit);
      rmSync(trial, { recursive: true, force: true });
      const items = await read(units[0]!);
      expect(items).toHaveLength(1);
      expect(items[0]!.type === "error" && items[0]!.error.format()).toBe(
        `${join(trial, "result.json")}: unreadable: file not found`,
      );
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("lists the first 50 bad lines of a file, then how many more, and still loads the good ones", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "fire-registry-many-"));
    try {
      const good = readFileSync(
        fixture("real-clients/codex-rm-deny/session.jsonl"),
        "utf8",
      ).trimEnd();
      const f = join(tmp, "rollout-noisy.jsonl");
      writeFileSync(
        f,
        `${good}\n${Array.from({ length: 120 }, (_, i) => `{"broken": ${i},`).join("\n")}\n`,
      );
      const units: SourceUnit[] = [];
      for await (const it of discoverUnits([f])) if (it.type === "unit") units.push(it.unit);
      const items = await read(units[0]!);
      const errors = items.flatMap((i) => (i.type === "error" ? [i.error.format()] : []));
      expect(errors).toHaveLength(MAX_ERRORS_PER_FILE + 1);
      expect(errors[0]).toMatch(/rollout-noisy\.jsonl:41: invalid JSON/);
      expect(errors.at(-1)).toBe(`${f}: 70 more bad records not listed`);
      expect(items.filter((i) => i.type === "attempt")).toHaveLength(1);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("stops discovering when the signal is aborted", async () => {
    const ctl = new AbortController();
    ctl.abort();
    const seen: unknown[] = [];
    for await (const it of discoverUnits([fixture("harbor-openclaw")], { signal: ctl.signal }))
      seen.push(it);
    expect(seen).toEqual([]);
  });
});
