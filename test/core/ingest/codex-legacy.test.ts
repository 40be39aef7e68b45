import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../helpers/paths.js";
import { collect } from "./collect.js";

const FILE = resolve(
  REPO_ROOT,
  "test/fixtures/codex-legacy/rollout-2025-06-10T14-03-22-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl",
);

describe("pre-wrapper Codex rollouts (session header, raw items, record_type state)", () => {
  it("detects the layout by content and reads prompt, calls with exit codes and the answer", async () => {
    const got = await collect([FILE]);
    expect(got.errors).toEqual([]);
    expect(got.units.map((u) => u.format)).toEqual(["codex-rollout"]);
    const a = got.attempts[0]!;
    expect(a.agent).toBe("codex");
    expect(a.startedAt).toBe("2025-06-10T14:03:22.117Z");
    expect(a.taskText).toBe(
      "The test in tests/test_math.py fails. Fix add() in calc/math.py and make the tests pass.",
    );
    expect(a.events.map((e) => e.kind)).toEqual([
      "prompt",
      "reasoning",
      "tool_call",
      "tool_result",
      "tool_call",
      "tool_result",
      "tool_call",
      "tool_result",
      "message",
      "stop",
    ]);
    const calls = a.events.filter((e) => e.kind === "tool_call");
    expect(calls[0]!.command).toBe("pytest -q");
    expect(calls[1]!.command).toMatch(/^apply_patch \*\*\* Begin Patch/);
    const results = a.events.filter((e) => e.kind === "tool_result");
    expect(results.map((r) => r.exitCode)).toEqual([1, 0, 0]);
    expect(results[0]!.output).toMatch(/1 failed, 1 passed/);
  });

  it("names file:line of a bad line and still loads the lines around it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fire-codex-legacy-"));
    try {
      const lines = readFileSync(FILE, "utf8").trimEnd().split("\n");
      lines.splice(5, 0, '{"record_type":"state"', '{"call_id":"x","output":"no type"}');
      const f = join(dir, "old.jsonl");
      writeFileSync(f, `${lines.join("\n")}\n`);
      const got = await collect([f]);
      expect(got.errors).toHaveLength(2);
      expect(got.errors[0]).toMatch(/old\.jsonl:6: invalid JSON/);
      expect(got.errors[1]).toMatch(/old\.jsonl:7: expected a pre-wrapper Codex rollout line/);
      expect(got.attempts[0]!.events.filter((e) => e.kind === "tool_call")).toHaveLength(3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
