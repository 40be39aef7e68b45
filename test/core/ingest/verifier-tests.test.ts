import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  ctrfTests,
  junitTests,
  parserResultTests,
  pytestRun,
} from "../../../src/core/ingest/verifier-tests.js";
import { truncatedFinalResponse } from "../../../src/core/mine/faults/index.js";
import { fixture, REPO_ROOT } from "../../helpers/paths.js";
import { collect } from "./collect.js";

const DIR = resolve(REPO_ROOT, "test/fixtures/verifier");
const read = (f: string) => readFileSync(join(DIR, f), "utf8");
const lineOf = (file: string, line: number | undefined) =>
  readFileSync(file, "utf8").split("\n")[(line ?? 0) - 1] ?? "";

const tmp: string[] = [];
afterAll(() => {
  for (const d of tmp) rmSync(d, { recursive: true, force: true });
});

describe("pytest output (a real run)", () => {
  it("keeps E lines of an exception raised deep in a call, however far pytest indents them", () => {
    const file = join(DIR, "pytest-deep.txt");
    const run = pytestRun(read("pytest-deep.txt"), file);
    expect(run.counts).toEqual({ failed: 2, passed: 1 });
    const by = new Map(run.tests.map((t) => [t.name.split("::").pop(), t]));
    const missing = by.get("test_binary_runs");
    expect(missing?.message).toContain(
      "No such file or directory: '/usr/local/bin/not-installed-tool'",
    );
    expect(lineOf(file, missing?.line)).toMatch(/^E {13,}FileNotFoundError/);
    expect(by.get("test_install_from_index")?.message).toContain("returned non-zero exit status 1");
  });

  it("reads every test, its status, the E lines as its message, and the count line", () => {
    const file = join(DIR, "pytest-rA.txt");
    const run = pytestRun(read("pytest-rA.txt"), file);
    expect(run.counts).toEqual({ failed: 3, passed: 1 });
    expect(run.noTests).toBe(false);
    const by = new Map(run.tests.map((t) => [t.name.split("::").pop(), t]));
    expect(by.get("test_arithmetic")?.status).toBe("passed");
    expect(by.get("test_report_value")?.status).toBe("failed");
    // the summary row is cut off ("FileNotFoundError:..."); the section's E line is whole
    const fnf = by.get("test_results_json_readable");
    expect(fnf?.message).toContain("No such file or directory: '/app/out/results.json'");
    expect(lineOf(file, fnf?.line)).toMatch(/^E\s+FileNotFoundError/);
    expect(by.get("test_solution_exists")?.message).toContain("solution.py was not created");
  });

  it("reads -v rows, and says when no test ran", () => {
    const v = pytestRun(read("pytest-v.txt"));
    expect(v.tests.map((t) => t.status).sort()).toEqual(["failed", "failed", "failed", "passed"]);
    const none = pytestRun(read("pytest-none.txt"));
    expect(none.tests).toEqual([]);
    expect(none.noTests).toBe(true);
    expect(pytestRun(read("pytest-rA.txt")).noTests).toBe(false);
  });
});

describe("JUnit XML (a real pytest --junitxml report)", () => {
  it("reads each testcase with its failure message and line", () => {
    const file = join(DIR, "junit.xml");
    const tests = junitTests(read("junit.xml"), file) ?? [];
    expect(tests).toHaveLength(4);
    const fnf = tests.find((t) => t.name.endsWith("test_results_json_readable"));
    expect(fnf?.status).toBe("failed");
    expect(fnf?.message).toContain("No such file or directory: '/app/out/results.json'");
    expect(tests.find((t) => t.name.endsWith("test_arithmetic"))?.status).toBe("passed");
    expect(junitTests("<html></html>", file)).toBeUndefined();
  });
});

/** A CTRF report as Harbor's pytest plugin writes it (shape of a real verifier/ctrf.json). */
function ctrfReport(): string {
  const trace = [
    "def test_outputs_exist():",
    '>       assert Path("/app/out/plan.json").exists(), "plan.json missing"',
    "E       AssertionError: plan.json missing",
    "E       assert False",
    "",
    "/tests/test_outputs.py:12: AssertionError",
  ].join("\n");
  return JSON.stringify(
    {
      results: {
        tool: { name: "pytest", version: "8.4.1" },
        summary: { tests: 2, passed: 1, failed: 1, skipped: 0, pending: 0, other: 0 },
        tests: [
          {
            name: "test_outputs.py::test_outputs_exist",
            status: "failed",
            raw_status: "call_failed",
            duration: 0.01,
            retries: 0,
            file_path: "test_outputs.py",
            trace,
            message: "The test failed in the call phase due to an assertion error",
          },
          {
            name: "test_outputs.py::test_format",
            status: "passed",
            raw_status: "passed",
            duration: 0.01,
          },
        ],
      },
    },
    null,
    4,
  );
}

describe("CTRF", () => {
  it("takes the E lines of the trace over a generic message; the line is the test's", () => {
    const text = ctrfReport();
    const tests = ctrfTests(text, "/x/ctrf.json") ?? [];
    expect(tests.map((t) => t.status)).toEqual(["failed", "passed"]);
    expect(tests[0]?.message).toBe("AssertionError: plan.json missing\nassert False");
    expect(text.split("\n")[(tests[0]?.line ?? 0) - 1]).toContain('"name": "test_outputs.py::');
    expect(ctrfTests('{"results": {}}', "/x/ctrf.json")).toBeUndefined();
  });
});

describe("TB1 parser_results", () => {
  it("maps test names to statuses with their lines", () => {
    const text = JSON.stringify(
      { trial_name: "t", parser_results: { test_a: "passed", test_b: "failed" } },
      null,
      2,
    );
    const tests = parserResultTests({ test_a: "passed", test_b: "failed" }, "/r.json", text);
    expect(tests.map((t) => [t.name, t.status])).toEqual([
      ["test_a", "passed"],
      ["test_b", "failed"],
    ]);
    expect(text.split("\n")[(tests[1]?.line ?? 0) - 1]).toContain('"test_b"');
  });
});

describe("importers fill Attempt.verifierTests and agentEnd", () => {
  it("Harbor: ctrf.json beside test-stdout, the agent's exit status, the final turn", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fire-vt-"));
    tmp.push(dir);
    const trial = join(dir, "job", "some-task__abc123");
    mkdirSync(join(trial, "verifier"), { recursive: true });
    mkdirSync(join(trial, "agent", "command-0"), { recursive: true });
    mkdirSync(join(trial, "agent", "command-1"), { recursive: true });
    writeFileSync(
      join(trial, "result.json"),
      JSON.stringify({
        task_name: "some-task",
        trial_name: "some-task__abc123",
        verifier_result: { rewards: { reward: 0 } },
      }),
    );
    writeFileSync(join(trial, "verifier", "ctrf.json"), ctrfReport());
    writeFileSync(join(trial, "verifier", "test-stdout.txt"), "1 failed, 1 passed\n");
    writeFileSync(join(trial, "agent", "command-0", "return-code.txt"), "0");
    writeFileSync(join(trial, "agent", "command-1", "return-code.txt"), "137");
    const step = (id: number, extra: object) => ({
      step_id: id,
      timestamp: "2026-01-01T00:00:00Z",
      source: "agent",
      model_name: "m",
      ...extra,
    });
    writeFileSync(
      join(trial, "agent", "trajectory.json"),
      JSON.stringify({
        schema_version: "ATIF-v1.6",
        session_id: "s",
        agent: { name: "openclaw", version: "unknown", model_name: "m" },
        steps: [
          { step_id: 1, source: "user", message: "Write /app/out/plan.json" },
          step(2, {
            message: "",
            tool_calls: [
              { tool_call_id: "c1", function_name: "exec", arguments: { command: "ls" } },
            ],
            metrics: { prompt_tokens: 900, completion_tokens: 20, cached_tokens: 0 },
            extra: { openclaw_role: "assistant", stop_reason: "toolUse" },
          }),
          step(3, {
            message: "out",
            extra: { openclaw_role: "toolResult" },
            observation: { results: [{ source_call_id: "c1", content: "out" }] },
          }),
          step(4, {
            message: "Now let me write the plan:",
            metrics: { prompt_tokens: 0, completion_tokens: 44, cached_tokens: 0 },
            extra: { openclaw_role: "assistant", stop_reason: "stop" },
          }),
        ],
      }),
    );
    const got = await collect([join(dir, "job")]);
    expect(got.errors).toEqual([]);
    const a = got.attempts[0]!;
    expect(a.verifierTests?.map((t) => t.status)).toEqual(["failed", "passed"]);
    expect(a.verifierTests?.[0]?.file).toBe(join(trial, "verifier", "ctrf.json"));
    expect(a.agentEnd).toMatchObject({
      stopReason: "stop",
      promptTokens: 0,
      outputTokens: 44,
      toolCalls: 0,
      meteredTurns: 1,
      exitCode: 137,
      exitFile: join(trial, "agent", "command-1", "return-code.txt"),
      file: join(trial, "agent", "trajectory.json"),
    });
    const ev = a.events.find((e) => e.index === a.agentEnd?.eventIndex);
    expect(ev?.input).toBe("Now let me write the plan:");
  });
});

describe("Claude Code transcripts record the final turn", () => {
  const SESSION = fixture("real-clients/claude-rm-deny/session.jsonl");

  it("a real session: end_turn with usage, no fault; nor the same at max_tokens, the model's own", async () => {
    const real = (await collect([SESSION])).attempts[0]!;
    expect(real.agentEnd).toMatchObject({
      stopReason: "end_turn",
      promptTokens: 100,
      toolCalls: 0,
    });
    expect(real.agentEnd?.meteredTurns).toBeGreaterThan(0);
    const final = real.events.find((e) => e.index === real.agentEnd?.eventIndex);
    expect(final?.kind).toBe("message");
    expect(truncatedFinalResponse({ ...real, outcome: "fail" })).toBeUndefined();

    const rows = readFileSync(SESSION, "utf8").split("\n").filter(Boolean);
    const last = rows
      .map((r) => JSON.parse(r) as { type?: string })
      .findLastIndex((r) => r.type === "assistant");
    const row = JSON.parse(rows[last]!) as { message: { stop_reason: string } };
    row.message.stop_reason = "max_tokens";
    rows[last] = JSON.stringify(row);
    const dir = mkdtempSync(join(tmpdir(), "fire-vt-"));
    tmp.push(dir);
    writeFileSync(join(dir, "session.jsonl"), `${rows.join("\n")}\n`);
    const cut = (await collect([join(dir, "session.jsonl")])).attempts[0]!;
    expect(cut.agentEnd?.stopReason).toBe("max_tokens");
    // it used up the output the request allowed, metered: the model's generation, no cut
    expect(truncatedFinalResponse({ ...cut, outcome: "fail" })).toBeUndefined();
    // with no usage reported beside it, the provider's cut
    const unmetered = { ...cut, agentEnd: { ...cut.agentEnd, promptTokens: 0 } };
    expect(truncatedFinalResponse({ ...unmetered, outcome: "fail" })?.code).toBe(
      "truncated-model-response",
    );
  });
});
