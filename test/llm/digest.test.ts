import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDetectors } from "../../src/core/mine/detectors/index.js";
import { Attempt } from "../../src/core/model/attempt.js";
import { loadWorkspace, type Workspace } from "../../src/core/workspace/load.js";
import { LlmConfig } from "../../src/llm/config.js";
import { buildLabelPrompt } from "../../src/llm/prompt.js";
import { fixture } from "../helpers/paths.js";
import { PLANTED } from "./attempts.js";

const limits = LlmConfig.parse({});

/**
 * A long failed attempt: a deliverable written early, then a failing build among hundreds
 * of benign listings, then more listings and a stop. Selection by position shows the end.
 */
function longAttempt(): Attempt {
  const events: unknown[] = [
    {
      index: 0,
      kind: "prompt",
      role: "user",
      input: "Write the parser to /app/out/parse.py and make it pass.",
    },
    {
      index: 1,
      kind: "tool_call",
      tool: "Write",
      input: '{"path":"/app/out/parse.py"}',
      writes: ["/app/out/parse.py"],
      callId: "w",
    },
    { index: 2, kind: "tool_result", callId: "w", output: "ok" },
  ];
  const benign = (k: number) => {
    const i = events.length;
    events.push(
      {
        index: i,
        kind: "tool_call",
        tool: "Bash",
        command: `ls -la /app/data/part${k}`,
        callId: `l${k}`,
      },
      {
        index: i + 1,
        kind: "tool_result",
        callId: `l${k}`,
        output: "x\n".repeat(200),
        exitCode: 0,
      },
    );
  };
  for (let k = 0; k < 150; k++) benign(k);
  const f = events.length;
  events.push(
    {
      index: f,
      kind: "tool_call",
      tool: "Bash",
      command: "python -m pytest /app/tests -x",
      callId: "t",
    },
    {
      index: f + 1,
      kind: "tool_result",
      callId: "t",
      output: `ImportError: cannot import name 'parse_row' (token ${PLANTED.github})`,
      exitCode: 1,
    },
  );
  for (let k = 150; k < 300; k++) benign(k);
  const n = events.length;
  events.push(
    { index: n, kind: "message", role: "agent", input: "I will now write the final parser." },
    { index: n + 1, kind: "stop" },
  );
  const assertion = `E   AssertionError: parse_row returned ${"['a', 'b'] ".repeat(25)}`;
  return Attempt.parse({
    id: "long-1",
    source: { format: "fire-jsonl", path: "x.jsonl" },
    taskId: "parser",
    taskText: "Write the parser to /app/out/parse.py so that the tests in /app/tests pass.",
    outcome: "fail",
    tokens: { input: 91000, output: 0 },
    agentEnd: { eventIndex: 2, stopReason: "length", toolCalls: 0, exitCode: 137 },
    exception: {
      type: "AgentTimeoutError",
      message: "Agent execution timed out after 900 seconds",
    },
    verifierOutput: [
      "============================= test session starts ==============================",
      "collected 3 items",
      "",
      "tests/test_parse.py::test_rows FAILED",
      "tests/test_parse.py::test_header PASSED",
      "=================================== FAILURES ===================================",
      "__________________________________ test_rows ___________________________________",
      assertion,
      ...Array.from(
        { length: 60 },
        (_, i) => `    frame ${i} of a long traceback in /usr/lib/python3/site.py`,
      ),
      "FAILED tests/test_parse.py::test_rows - AssertionError: parse_row returned ['a', 'b']",
      "========================= 1 failed, 1 passed in 0.21s =========================",
    ].join("\n"),
    events,
  });
}

describe("the LLM digest selects events by relevance, not position", () => {
  it("shows the failing call mid-trace, the deliverable write, the last turns and the run's end", () => {
    const a = longAttempt();
    const p = buildLabelPrompt(a, [], limits);
    const user = p.messages[1]?.content ?? "";
    const failIdx = a.events.find((e) => e.exitCode === 1)?.index ?? -1;
    expect(failIdx).toBeGreaterThan(250);
    expect(a.events.length - failIdx).toBeGreaterThan(250); // far from the end
    expect(p.shownEvents).toContain(failIdx);
    expect(p.shownEvents).toContain(failIdx - 1); // the call that failed
    expect(p.shownEvents).toContain(1); // the write to the task-named deliverable
    const n = a.events.length;
    for (let k = 1; k <= 4; k++) expect(p.shownEvents).toContain(n - k);
    expect(user).toContain("ImportError: cannot import name 'parse_row'");
    expect(user).not.toContain(PLANTED.github);
    expect(user).toContain(
      "## Run end\nexception AgentTimeoutError: Agent execution timed out after 900 seconds · tokens in 91000 / out 0 · final turn [2]: stop reason length, no usage reported, 0 tool call(s) · agent process exit 137",
    );
    expect(p.shownEvents).toContain(2); // the final turn the trace records
    expect(p.promptTokens).toBeLessThanOrEqual(p.budgetTokens);
  });

  it("shows the failing assertion whole and the test counts, ahead of the traceback's tail", () => {
    const a = longAttempt();
    const user = buildLabelPrompt(a, [], limits).messages[1]?.content ?? "";
    const assertion = (a.verifierOutput ?? "").split("\n").find((l) => l.startsWith("E   "));
    expect(assertion?.length).toBeGreaterThan(250);
    expect(user).toContain(
      "## Verifier: failing checks, then output tail\ntests: 1 failed, 1 passed\n",
    );
    expect(user).toContain(assertion?.trim());
  });
});

describe("the digest on real OpenClaw failures", () => {
  let dir: string;
  let ws: Workspace;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "fire-digest-"));
    await writeFile(
      join(dir, "fire.config.json"),
      JSON.stringify({ sources: [fixture("harbor-openclaw")] }),
    );
    ws = await loadWorkspace(dir);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("shows every failed call of the last stretch and the verifier's missing-file line", () => {
    let checked = 0;
    for (const a of ws.attempts) {
      const hits = runDetectors(a, { siblings: [] });
      const p = buildLabelPrompt(a, hits, limits);
      const user = p.messages[1]?.content ?? "";
      expect(p.promptTokens).toBeLessThanOrEqual(p.budgetTokens);
      // the latest failure (a non-zero exit or an error result) is always shown
      const lastFail = a.events.findLast(
        (e) => e.kind === "tool_result" && ((e.exitCode ?? 0) !== 0 || e.isError === true),
      );
      if (lastFail) {
        expect(p.shownEvents, a.id).toContain(lastFail.index);
        checked += 1;
      }
      for (const line of (a.verifierOutput ?? "").split("\n"))
        if (/does not exist/.test(line) && line.length < 200)
          expect(user, a.id).toContain(line.trim());
    }
    expect(checked).toBeGreaterThanOrEqual(5);
  });
});
