import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { failingTests } from "../../../src/core/ingest/verifier-tests.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { tempDirs } from "../../helpers/temp-dirs.js";
import { collect } from "./collect.js";

/** Two real SlopCodeBench checkpoints (test/fixtures/checkpoint-run, README there). */
const FIXTURE = resolve(REPO_ROOT, "test/fixtures/checkpoint-run");
const temp = tempDirs();

let attempts: Attempt[];
let errors: string[];
beforeAll(async () => {
  ({ attempts, errors } = await collect([FIXTURE]));
});
const checkpoint = (n: number) => {
  const a = attempts.find((x) => x.taskId === `code_search/checkpoint_${n}`);
  if (!a) throw new Error(`no checkpoint ${n}`);
  return a;
};

describe("a multi-stage benchmark's checkpoint folders (SlopCodeBench layout)", () => {
  it("reads each checkpoint as one attempt: its printed log, not the CLI's side files", () => {
    expect(errors).toEqual([]);
    expect(attempts).toHaveLength(2);
    expect(attempts.every((a) => a.source.format === "checkpoint-run")).toBe(true);
  });

  it("takes the task from prompt.txt and the actions from Claude Code's stream-json", () => {
    const a = checkpoint(1);
    expect(a.taskText).toMatch(/^Implement a program/);
    expect(a.agent).toBe("claude-code");
    expect(a.model).toBe("glm-5");
    const calls = a.events.filter((e) => e.kind === "tool_call");
    expect(calls.length).toBeGreaterThan(10);
    expect(calls.some((c) => c.tool === "Write" || c.tool === "Edit")).toBe(true);
    expect(a.events.at(-1)?.kind).toBe("stop");
    expect(a.durationS).toBeGreaterThan(0);
  });

  it("grades by the hidden tests: every test passed is a pass, one failed a failure", () => {
    expect(checkpoint(1)).toMatchObject({ outcome: "pass", reward: 1 });
    const a = checkpoint(2);
    expect(a.outcome).toBe("fail");
    expect(a.reward).toBeCloseTo(15 / 25);
    const failing = failingTests(a);
    expect(failing.length).toBe(10);
    // the earlier checkpoint's tests are regression tests, the Core group this checkpoint's
    const core = failing.find((t) => t.name.startsWith("checkpoint_2-Core: "));
    expect(core?.role).toBe("target");
    expect(a.verifierTests?.some((t) => t.role === "regression")).toBe(true);
    // each failure's text from the pytest-json-report, and pytest's own output as the verifier's
    expect(core?.message?.length).toBeGreaterThan(20);
    expect(a.verifierOutput).toMatch(/passed|failed/);
  });

  it("a bad test group is named with what was expected; the checkpoint and its other groups load", async () => {
    const dir = temp.copyOf(FIXTURE, "fire-checkpoint-");
    const bad = join(dir, "code_search/checkpoint_2/evaluation.json");
    const ev = JSON.parse(readFileSync(bad, "utf8"));
    ev.tests["checkpoint_2-Core"] = { failed: 3 };
    writeFileSync(bad, JSON.stringify(ev));
    const got = await collect([dir]);
    expect(got.attempts.map((a) => a.taskId).sort()).toEqual([
      "code_search/checkpoint_1",
      "code_search/checkpoint_2",
    ]);
    expect(got.errors.join("\n")).toMatch(
      /checkpoint_2\/evaluation\.json.*"checkpoint_2-Core".*passed, failed, skipped/s,
    );
    const a = got.attempts.find((x) => x.taskId === "code_search/checkpoint_2");
    expect(a?.verifierTests?.some((t) => t.name.startsWith("checkpoint_2-Core"))).toBe(false);
    expect(a?.verifierTests?.length).toBeGreaterThan(0);
  });

  it("an earlier test is a regression test only where it passed at the previous checkpoint", async () => {
    const dir = temp.copyOf(FIXTURE, "fire-checkpoint-");
    const before = join(dir, "code_search/checkpoint_1/evaluation.json");
    const ev = JSON.parse(readFileSync(before, "utf8"));
    const core = ev.tests["checkpoint_1-Core"];
    core.failed = [core.passed.shift()];
    writeFileSync(before, JSON.stringify(ev));
    const got = await collect([dir]);
    const a = got.attempts.find((x) => x.taskId === "code_search/checkpoint_2");
    const inherited = a?.verifierTests?.find(
      (t) => t.name === `checkpoint_1-Regression: ${core.failed[0]}`,
    );
    expect(inherited).toBeDefined();
    expect(inherited?.role).toBeUndefined();
    const kept = a?.verifierTests?.find(
      (t) => t.name === `checkpoint_1-Regression: ${core.passed[0]}`,
    );
    expect(kept?.role).toBe("regression");
  });

  it("a run the CLI ended at its turn limit is a step limit, not the agent's stop", async () => {
    const dir = temp.copyOf(FIXTURE, "fire-checkpoint-");
    const printed = join(dir, "code_search/checkpoint_2/agent/stdout.jsonl");
    const lines = readFileSync(printed, "utf8").trimEnd().split("\n");
    const last = JSON.parse(lines.at(-1) ?? "{}");
    lines[lines.length - 1] = JSON.stringify({
      ...last,
      subtype: "error_max_turns",
      is_error: true,
      num_turns: 100,
    });
    writeFileSync(printed, `${lines.join("\n")}\n`);
    const got = await collect([dir]);
    const a = got.attempts.find((x) => x.taskId === "code_search/checkpoint_2");
    expect(a?.exception?.type).toBe("MaxTurnsReached");
    expect(a?.exception?.message).toMatch(/max turns limit \(100 turns\)/);
    // the CLI ended the run, not the agent: no stop of the agent's own
    expect(a?.events.at(-1)?.kind).not.toBe("stop");
  });
});
