import { describe, expect, it } from "vitest";
import { forbidsRunning, heldBack } from "../../../src/core/mine/held-back.js";
import { Attempt } from "../../../src/core/model/attempt.js";

const attempt = (taskText: string): Attempt =>
  Attempt.parse({
    id: "a",
    source: { format: "fire-jsonl", path: "/x/a.jsonl" },
    taskId: "t",
    taskText,
    outcome: "fail",
    events: [
      { index: 0, kind: "tool_call", tool: "edit", input: '{"path":"crc.py"}', writes: ["crc.py"] },
      { index: 1, kind: "stop" },
    ],
  });

describe("a task that tells the agent not to run the code", () => {
  it("holds back a stop without a check: running it was no rule the agent could follow", () => {
    // the wording of real bench prompts
    for (const t of [
      "Create only `crc.py`. Don't run it.",
      "Modify `orders.py` in place. Don't run it — just refactor it.",
      "Create only `balance.py`. Do not create test files or run anything.",
      "Never run `app.py`.",
      "- Do not run the code.",
      "Write the parser without running it.",
    ]) {
      expect(forbidsRunning(t), t).toBe(true);
      expect(heldBack(attempt(t), [], { id: "stop-without-check", point: "stop" }), t).toMatch(
        /not to run the code/,
      );
    }
    // another mechanism at the stop is not held back by it
    expect(
      heldBack(attempt("Don't run it."), [], { id: "artifact-never-written", point: "stop" }),
    ).toBeUndefined();
  });

  it("is not a ban on other programs, on one way of running, or a sentence about running", () => {
    for (const t of [
      "Do not run npm install or start servers. Just create the code.",
      "Do not run it as root.",
      "Do not run this on prod",
      "Fix the bug and run the tests before you finish.",
      "Do not run anything else than pytest",
      "Don't forget to build or run the tests.",
      "Make it work without running it as root.",
      "Never run the program directly; use ./run.sh and check the output.",
      "The daemon must never run the tests, only the CI does.",
      "Don't run `tests/test_outputs.py`.",
      "If the build fails, do not run it.",
      "Do not run\nthe code.",
    ])
      expect(forbidsRunning(t), t).toBe(false);
  });

  it("reads hostile text in linear time", () => {
    const started = performance.now();
    forbidsRunning(`do not ${"aa or ".repeat(50_000)}`);
    forbidsRunning(`do not${" ".repeat(64_000)}x`);
    forbidsRunning(`. do not create${" ".repeat(64_000)}x`);
    forbidsRunning(`don't run ${"a.b".repeat(100_000)}`);
    forbidsRunning(`don't run \`${"a ".repeat(100_000)}`);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
