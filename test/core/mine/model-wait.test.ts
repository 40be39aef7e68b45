import { describe, expect, it } from "vitest";
import { faultOf } from "../../../src/core/mine/faults/index.js";
import { Attempt, type AttemptInput } from "../../../src/core/model/attempt.js";

const t0 = Date.parse("2025-01-01T00:00:00Z");
const ts = (s: number) => new Date(t0 + s * 1000).toISOString();

/** A timed-out run of 1800 s: a reasoning turn, a quick `ls`, then one command of `run` seconds. */
function run(firstAnswer: number, command: [number, number], output: number): Attempt {
  const events: AttemptInput["events"] = [
    { index: 0, kind: "prompt", role: "user", input: "Build the project.", ts: ts(0) },
    { index: 1, kind: "reasoning", role: "agent", input: "thinking", ts: ts(firstAnswer) },
    {
      index: 2,
      kind: "tool_call",
      tool: "Bash",
      command: "ls",
      callId: "c",
      ts: ts(firstAnswer + 1),
    },
    { index: 3, kind: "tool_result", callId: "c", output: "Makefile", ts: ts(firstAnswer + 2) },
    {
      index: 4,
      kind: "tool_call",
      tool: "Bash",
      command: "make -j8",
      callId: "d",
      ts: ts(command[0]),
    },
    { index: 5, kind: "tool_result", callId: "d", output: "ok", ts: ts(command[1]) },
  ];
  return Attempt.parse({
    id: "w",
    source: { format: "fire-jsonl", path: "w.jsonl" },
    taskId: "t",
    taskText: "Build the project.",
    outcome: "timeout",
    startedAt: ts(0),
    durationS: 1800,
    tokens: { output },
    exception: {
      type: "AgentTimeoutError",
      message: "Agent execution timed out after 1800.0 seconds",
    },
    events,
  });
}

describe("a starved model's pace counts only the time spent waiting on it", () => {
  it("a long build of the agent's own is no time the model was starved in", () => {
    // 95 s to a first answer, then a 900 s `make`: 900 tokens in ~100 s of model time
    expect(faultOf(run(95, [100, 1000], 900))?.code).not.toBe("model-never-answered");
  });

  it("a model that barely wrote between quick commands is still read as starved", () => {
    // the same first answer, a 5 s build 400 s in: 120 tokens in ~400 s of model time
    const f = faultOf(run(95, [400, 405], 120));
    expect(f).toMatchObject({ reason: "provider_fault", code: "model-never-answered" });
    expect(f?.detail).toMatch(
      /120 output tokens in the 405 s before its last event, 399 s of it outside its tool calls \(0\.30 a second\)/,
    );
  });
});
