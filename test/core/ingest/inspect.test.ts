import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { scoreValue } from "../../../src/core/ingest/inspect-sample.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { collect } from "./collect.js";

const DIR = resolve(REPO_ROOT, "test/fixtures/inspect");
const EVAL = join(DIR, "2026-01-15T10-00-00+00-00_fix-tests_hV2nJ6kL9mP3qR5sT8uW1x.eval");
const JSON_LOG = join(DIR, "2026-01-15T11-00-00+00-00_word-count_bC6dE9fG2hJ5kL8mN1pQ4r.json");
const tmp = mkdtempSync(join(tmpdir(), "fire-inspect-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("Inspect AI eval logs: .eval (zip)", () => {
  it("detects the zip by content and gives one attempt per sample and epoch, scored", async () => {
    const got = await collect([EVAL]);
    expect(got.errors).toEqual([]);
    expect(got.units.map((u) => u.format)).toEqual(["inspect-eval"]);
    const rows = got.attempts.map((a) => [a.taskId, a.attemptNo, a.reward, a.outcome]);
    expect(rows).toEqual([
      ["fix-tests/fix-add", 1, 1, "pass"],
      ["fix-tests/fix-add", 2, 1, "pass"],
      ["fix-tests/fix-date", 1, 0, "fail"],
      ["fix-tests/fix-date", 2, 1, "pass"],
      ["fix-tests/fix-io", 1, 0, "timeout"],
      ["fix-tests/fix-io", 2, 0, "timeout"],
    ]);
    const [add] = got.attempts;
    expect(add!.agent).toBe("basic_agent");
    expect(add!.model).toBe("gpt-4o-mini-2024-07-18");
    expect(add!.taskText).toMatch(/^The tests in \/app\/tests fail\./);
    expect(add!.verifierScores).toEqual({ includes: 1 });
    expect(add!.verifierOutput).toBe("includes: C (answer: PASSED) — PASSED");
    expect(got.attempts[4]!.exception).toEqual({
      type: "SampleTimeout",
      message: "time limit 600",
    });
    // Inspect's OpenAI usage: input_tokens already count the cache reads
    expect(add!.tokens).toEqual({ input: 2700, output: 160, cached: 1024, reasoning: 0 });
  });

  it("turns messages and tool calls into events, resolving attachments", async () => {
    const [add, , date] = (await collect([EVAL])).attempts;
    expect(add!.events.map((e) => e.kind)).toEqual([
      "message",
      "prompt",
      "tool_call",
      "tool_result",
      "tool_call",
      "tool_result",
      "reasoning",
      "message",
      "tool_call",
      "tool_result",
      "stop",
    ]);
    const calls = add!.events.filter((e) => e.kind === "tool_call");
    expect(calls.map((c) => [c.tool, c.command])).toEqual([
      ["bash", "cd /app && pytest -q"],
      ["bash", "sed -i 's/a - b/a + b/' /app/calc.py && cd /app && pytest -q"],
      ["submit", undefined],
    ]);
    const second = add!.events.filter((e) => e.kind === "tool_result")[1]!;
    expect(second.callId).toBe(calls[1]!.callId);
    expect(second.output).toContain("collected 2 items");
    expect(second.output).not.toContain("attachment://");
    expect(date!.events.some((e) => e.command?.startsWith("rm -rf /app/tests"))).toBe(true);
  });
});

describe("Inspect AI eval logs: .json", () => {
  it("reads a numeric model-graded score and a sample that errored", async () => {
    const got = await collect([JSON_LOG]);
    expect(got.errors).toEqual([]);
    const [one, two] = got.attempts;
    expect(got.attempts).toHaveLength(2);
    expect([one!.taskId, one!.reward, one!.outcome]).toEqual(["word-count/1", 1, "pass"]);
    expect(one!.verifierScores).toEqual({ model_graded_fact: 1 });
    expect([two!.taskId, two!.reward, two!.outcome]).toEqual(["word-count/2", null, "error"]);
    expect(two!.exception?.message).toMatch(/sandbox exited unexpectedly/);
    expect(two!.events.some((e) => e.kind === "stop")).toBe(false);
    // Anthropic usage through Inspect: the total shows input_tokens left the cache out
    expect(two!.tokens).toEqual({ input: 2900, output: 50, cached: 2000, cacheWrite: 100 });
  });

  it("names the bad sample and still loads the good one", async () => {
    const doc = JSON.parse(readFileSync(JSON_LOG, "utf8"));
    delete doc.samples[0].epoch;
    const f = join(tmp, "bad-sample.json");
    writeFileSync(f, JSON.stringify(doc, null, 2));
    const got = await collect([f]);
    expect(got.errors).toHaveLength(1);
    expect(got.errors[0]).toMatch(
      /bad-sample\.json: samples\[0\]: expected an Inspect AI eval sample/,
    );
    expect(got.errors[0]).toContain("epoch");
    expect(got.attempts.map((a) => a.taskId)).toEqual(["word-count/2"]);
  });

  it("a truncated .eval zip is an error naming the file, not a crash", async () => {
    const f = join(tmp, "cut.eval");
    writeFileSync(f, readFileSync(EVAL).subarray(0, 3000));
    const got = await collect([f]);
    expect(got.attempts).toEqual([]);
    expect(got.errors).toHaveLength(1);
    expect(got.errors[0]).toMatch(/cut\.eval: /);
  });

  it("an .eval without the .eval name is still detected by content", async () => {
    const f = join(tmp, "renamed.bin");
    copyFileSync(EVAL, f);
    expect((await collect([f])).attempts).toHaveLength(6);
  });
});

describe("score values as Inspect's value_to_float reads them", () => {
  it("maps C/I/P/N, yes/no, booleans and numeric strings", () => {
    expect(["C", "I", "P", "N", "yes", "no", true, false, "0.75", 2].map(scoreValue)).toEqual([
      1, 0, 0.5, 0, 1, 0, 1, 0, 0.75, 2,
    ]);
    expect(scoreValue({ a: 1 })).toBeUndefined();
    expect(scoreValue("maybe")).toBeUndefined();
  });
});
