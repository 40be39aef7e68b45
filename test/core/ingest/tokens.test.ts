import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { normTokens } from "../../../src/core/ingest/tokens.js";
import { fixture } from "../../helpers/paths.js";
import { collect } from "./collect.js";

const tmp = mkdtempSync(join(tmpdir(), "fire-tokens-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("one token model across formats (input includes cache reads and writes)", () => {
  it("Claude: input_tokens leave the cache out, so cache reads and writes are added in", async () => {
    // the real transcript, with the cache counts a cached turn reports
    const rows = readFileSync(fixture("real-clients/claude-rm-deny/session.jsonl"), "utf8")
      .replaceAll('"cache_creation_input_tokens":0', '"cache_creation_input_tokens":40')
      .replaceAll('"cache_read_input_tokens":0', '"cache_read_input_tokens":3000');
    const f = join(tmp, "cached.jsonl");
    writeFileSync(f, rows);
    const a = (await collect([f])).attempts[0]!;
    // 5 assistant messages of input 100 / output 20, each reading 3000 and writing 40
    expect(a.tokens).toEqual({ input: 5 * 3140, output: 100, cached: 15000, cacheWrite: 200 });
  });

  it("Codex: input_tokens already count cached input; reasoning is part of output", async () => {
    const got = await collect([
      fixture(
        "codex-rollouts-redacted/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl",
      ),
    ]);
    expect(got.attempts[0]!.tokens).toEqual({
      input: 298373,
      cached: 238848,
      output: 1123,
      reasoning: 483,
    });
  });

  it("a writer whose own total shows it left the cache out is corrected; one that did not is kept", () => {
    // OpenClaw's ATIF step: total_tokens 15292 = 413 prompt + 14848 cached + 31 completion
    expect(normTokens({ input: 413, output: 31, cached: 14848, total: 15292 })).toEqual({
      input: 15261,
      output: 31,
      cached: 14848,
    });
    // OpenAI-style: the total is input + output, the cache is inside the input
    expect(normTokens({ input: 1000, output: 10, cached: 800, total: 1010 })).toEqual({
      input: 1000,
      output: 10,
      cached: 800,
    });
    expect(normTokens({})).toBeUndefined();
  });
});
