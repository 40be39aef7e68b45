import { cpSync, mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { discoverUnits } from "../../src/core/ingest/discover.js";
import { fixture } from "../helpers/paths.js";

async function discover(paths: string[]) {
  const units: string[] = [];
  const errors: string[] = [];
  for await (const it of discoverUnits(paths)) {
    if (it.type === "unit") units.push(it.unit.path);
    else errors.push(it.error.format());
  }
  return { units, errors };
}

describe("a symlink in traces/", () => {
  it("is not followed out of the source folder; links inside it still are", async () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-symlink-"));
    const traces = join(ws, "traces");
    mkdirSync(join(traces, "real"), { recursive: true });
    cpSync(fixture("atif-golden"), join(traces, "real", "atif"), { recursive: true });
    symlinkSync("/etc", join(traces, "etc-link"));
    symlinkSync(join(traces, "real", "atif"), join(traces, "inside-link"));
    const r = await discover([traces]);
    expect(r.errors).toEqual([
      expect.stringMatching(/etc-link: symlink leads outside the source folder/),
    ]);
    expect(r.units.some((u) => u.startsWith("/etc"))).toBe(false);
    expect(r.units.filter((u) => u.includes("inside-link"))).toHaveLength(3);
    expect(r.units.filter((u) => u.includes("/real/"))).toHaveLength(3);
  });

  it("a source named explicitly may itself be a link", async () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-symlink-"));
    symlinkSync(fixture("atif-golden"), join(ws, "golden"));
    const r = await discover([join(ws, "golden")]);
    expect(r.errors).toEqual([]);
    expect(r.units).toHaveLength(3);
  });
});
