import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runFire } from "../helpers/cli.js";
import { fixture } from "../helpers/paths.js";

const ROLLOUT = fixture(
  "codex-rollouts-redacted",
  "rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl",
);
const TRANSCRIPT = fixture("real-clients", "claude-http-log", "session.jsonl");

/** `fire import --json` into a throw-away workspace (import records its sources there). */
function importJson(file: string) {
  const ws = mkdtempSync(join(tmpdir(), "fire-nul-ws-"));
  const r = runFire(["import", file, "--json", "--workspace", ws], { cwd: ws });
  expect(r.stderr).not.toMatch(/\n\s+at /);
  return JSON.parse(r.stdout) as {
    attempts: number;
    errors: { file: string; line: number | null; message: string }[];
  };
}

/** A copy of a real trace with a NUL line after line `at` and a zero-filled tail. */
function crashed(src: string, at: number, name: string): { file: string; lines: number } {
  const lines = readFileSync(src, "utf8").trimEnd().split("\n");
  const nulLine = "\0".repeat(512);
  const body = [...lines.slice(0, at), nulLine, ...lines.slice(at)].join("\n");
  const file = join(mkdtempSync(join(tmpdir(), "fire-nul-")), name);
  writeFileSync(file, Buffer.concat([Buffer.from(`${body}\n`), Buffer.alloc(8192)]));
  return { file, lines: lines.length + 1 };
}

describe("a NUL line or a zero-filled tail (crash artefacts)", () => {
  for (const [name, src] of [
    ["rollout.jsonl", ROLLOUT],
    ["session.jsonl", TRANSCRIPT],
  ] as const) {
    it(`is the error in ${name}; its good records still load`, () => {
      const clean = importJson(src);
      expect(clean.attempts).toBe(1);
      const { file, lines } = crashed(src, 3, name);
      const r = importJson(file);
      expect(r.attempts).toBe(1);
      const nul = expect.stringMatching(/^line holds NUL bytes/);
      expect(r.errors).toEqual([
        { file, line: 4, message: nul },
        { file, line: lines + 1, message: nul },
      ]);
    });
  }

  it("a real binary file is still refused as binary", () => {
    const file = join(mkdtempSync(join(tmpdir(), "fire-bin-")), "blob.jsonl");
    writeFileSync(file, Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x41, 0x00, 0x0a, 0x7b]));
    expect(importJson(file).errors).toEqual([
      { file, line: null, message: expect.stringMatching(/^binary file/) },
    ]);
  });
});
