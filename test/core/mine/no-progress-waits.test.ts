import { describe, expect, it } from "vitest";
import { runDetectors } from "../../../src/core/mine/detectors/index.js";
import { Attempt, type Event } from "../../../src/core/model/attempt.js";

type Step = { cmd: string; out: string } | { tool: string; input: string; out: string };

/** A timed-out attempt of shell calls and other tool calls, each with its result. */
function timedOut(steps: Step[]): Attempt {
  const events: Event[] = [{ index: 0, kind: "prompt", role: "user", input: "Build /app." }];
  steps.forEach((s, i) => {
    const call: Event =
      "cmd" in s
        ? { index: events.length, kind: "tool_call", tool: "Bash", command: s.cmd, callId: `t${i}` }
        : {
            index: events.length,
            kind: "tool_call",
            tool: s.tool,
            input: s.input,
            callId: `t${i}`,
          };
    events.push(call);
    events.push({
      index: events.length,
      kind: "tool_result",
      callId: `t${i}`,
      output: s.out,
      ...("cmd" in s ? { exitCode: 0 } : {}),
    });
  });
  events.push({ index: events.length, kind: "stop" });
  return Attempt.parse({
    id: "unit-1",
    source: { format: "fire-jsonl", path: "unit.jsonl" },
    taskId: "unit",
    taskText: "Build the project in /app in release mode.",
    outcome: "timeout",
    events,
  });
}

const noProgress = (a: Attempt) =>
  runDetectors(a, { siblings: [] }).find((h) => h.detectorId === "loop.no-progress");
const six = (s: Step): Step[] => [s, s, s, s, s, s];

describe("loop.no-progress: waiting, distinct calls, and answers that are no error", () => {
  it("a job's output read again while it runs is waiting, however the harness waits", () => {
    const compiling = "   Compiling serde v1.0.200\n   Compiling tokio v1.37.0";
    // the build's own output file, read without a sleep (the harness waits by a duration)
    const bg = { cmd: "cd /app && cargo build --release > /tmp/build.out 2>&1 &", out: "[1] 77" };
    expect(
      noProgress(timedOut([bg, ...six({ cmd: "tail -n 2 /tmp/build.out", out: compiling })])),
    ).toBeUndefined();
    // any log file
    expect(
      noProgress(timedOut(six({ cmd: "tail -n 2 /app/server.log", out: compiling }))),
    ).toBeUndefined();
    // a tool that reads a background job's output, or a process tool asked to poll
    const running = "<status>running</status>";
    expect(
      noProgress(timedOut(six({ tool: "BashOutput", input: '{"bash_id":"abc"}', out: running }))),
    ).toBeUndefined();
    const poll = { tool: "process", input: '{"action":"poll","sessionId":"s1"}', out: "running" };
    expect(noProgress(timedOut(six(poll)))).toBeUndefined();
    // which jobs still run
    expect(
      noProgress(timedOut(six({ cmd: "ps aux | grep cargo", out: "root 77 cargo build" }))),
    ).toBeUndefined();
    // the same file read again, no job writing it: still the same look repeated
    expect(noProgress(timedOut(six({ cmd: "cat /app/notes.txt", out: compiling })))).toBeDefined();
    expect(
      noProgress(timedOut([bg, ...six({ cmd: "cat /app/notes.txt", out: compiling })])),
    ).toBeDefined();
  });

  it("calls that differ in an id or a URL's number are different calls", () => {
    const items = [1, 2, 3, 4, 5, 6].map((i) => ({
      cmd: `curl -s localhost:8000/items/${i}`,
      out: '{"ok":true}',
    }));
    expect(noProgress(timedOut(items))).toBeUndefined();
    // the same item again is the same call; an option's number is the same look at more
    expect(
      noProgress(timedOut(six({ cmd: "curl -s localhost:8000/items/1", out: "{}" }))),
    ).toBeDefined();
    const heads = [10, 20, 30, 40, 50, 60].map((n) => ({
      cmd: `find /app -name '*.rs' | head -n ${n}`,
      out: "/app/src/main.rs",
    }));
    expect(noProgress(timedOut(heads))).toBeDefined();
  });

  it("the same look with the same answer until the budget ran out is the loop", () => {
    // no call failed, but nothing new came of any repeat and the budget ran out on it
    const read = timedOut(six({ cmd: "cat /app/Cargo.toml", out: '[package]\nname = "app"' }));
    expect(noProgress(read)?.mechanism).toBe("repeated-tool-error");
    const search = { cmd: "grep -rn 'fn main' /app/vendor || true", out: "" };
    expect(noProgress(timedOut(six(search)))?.mechanism).toBe("repeated-tool-error");
  });
});
