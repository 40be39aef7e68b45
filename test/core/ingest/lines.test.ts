import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type LineItem, readLines } from "../../../src/core/ingest/lines.js";

const tmp = mkdtempSync(join(tmpdir(), "fire-lines-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function all(text: string, maxLineBytes?: number): Promise<LineItem[]> {
  const f = join(tmp, `f-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(f, text);
  const out: LineItem[] = [];
  for await (const it of readLines(f, { maxLineBytes })) out.push(it);
  return out;
}

describe("readLines (streaming JSONL lines)", () => {
  it("numbers lines from 1, skips blank lines and keeps a last line without newline", async () => {
    expect(await all('{"a":1}\n\n  \r\n{"b":"é"}\r\n{"c":3}')).toEqual([
      { type: "line", line: 1, text: '{"a":1}' },
      { type: "line", line: 4, text: '{"b":"é"}\r' },
      { type: "line", line: 5, text: '{"c":3}' },
    ]);
  });

  it("joins lines that span read chunks, multi-byte characters included", async () => {
    const long = `"${"ü".repeat(300_000)}"`; // 600 kB: spans three 256 KiB reads
    const got = await all(`1\n${long}\n2\n`);
    expect(got.map((g) => g.line)).toEqual([1, 2, 3]);
    expect(got[1]).toEqual({ type: "line", line: 2, text: long });
  });

  it("reports an over-long line once, without holding it, and goes on", async () => {
    const got = await all(`first\n${"x".repeat(700_000)}\nthird\n${"y".repeat(50)}`, 1000);
    expect(got).toEqual([
      { type: "line", line: 1, text: "first" },
      { type: "too-long", line: 2, bytes: 700_000 },
      { type: "line", line: 3, text: "third" },
      { type: "line", line: 4, text: "y".repeat(50) },
    ]);
  });
});
