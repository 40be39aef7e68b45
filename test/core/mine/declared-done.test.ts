import { describe, expect, it } from "vitest";
import { seenByAgent, toolCalls } from "../../../src/core/mine/detectors/shell.js";
import { stopNoCheck } from "../../../src/core/mine/detectors/stop-no-check.js";
import { Attempt } from "../../../src/core/model/attempt.js";
import { attempt, type Step } from "./bash-attempt.js";

const TASK = "QDP commands should be read case-insensitively.";
const edit = { cmd: "sed -i 's/READ SERR/read serr/' pkg/qdp.py", out: "" };
const diff = "diff --git a/pkg/qdp.py b/pkg/qdp.py\n-READ SERR\n+read serr\n";
const submit = (marker: string) => ({
  cmd: `echo ${marker} && git add -A && git diff --cached`,
  out: diff,
});
const fires = (steps: Step[]) => stopNoCheck.detect(attempt(TASK, steps), {}).length > 0;

describe("a command that declares the task done shows its output to the harness, not the agent", () => {
  it("the diff printed with a harness's completion sentinel is no check of the edit", () => {
    expect(fires([edit, submit("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT")])).toBe(true);
    expect(fires([edit, submit("MINI_SWE_AGENT_FINAL_OUTPUT")])).toBe(true);
  });

  it("a diff the agent read before declaring, or any echo that declares nothing, still checks", () => {
    const looked = { cmd: "git diff", out: diff };
    expect(fires([edit, looked, submit("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT")])).toBe(false);
    // a word in lower case, or one that names no submission, is the agent's own output
    expect(fires([edit, submit("done_submit")])).toBe(false);
    expect(fires([edit, submit("CHECKING_OUTPUT")])).toBe(false);
    // an agent turn after the declaring command's output: it was read
    expect(
      fires([
        edit,
        submit("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
        { say: "The diff looks right." },
      ]),
    ).toBe(false);
  });
});

describe("the completion sentinel on shapes a review found", () => {
  it("same turn: a test run sent alongside the sentinel command was never read (doc says so)", () => {
    const events = [
      { index: 0, kind: "prompt", role: "user", input: TASK },
      { index: 1, kind: "tool_call", tool: "bash", command: edit.cmd, callId: "a" },
      { index: 2, kind: "tool_result", callId: "a", output: "", exitCode: 0 },
      {
        index: 3,
        kind: "tool_call",
        tool: "bash",
        command: "python -m pytest tests/test_qdp.py -q",
        callId: "b",
      },
      {
        index: 4,
        kind: "tool_call",
        tool: "bash",
        command: "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached",
        callId: "c",
      },
      {
        index: 5,
        kind: "tool_result",
        callId: "b",
        output: "1 failed, 3 passed in 0.2s",
        exitCode: 1,
      },
      { index: 6, kind: "tool_result", callId: "c", output: diff, exitCode: 0 },
      { index: 7, kind: "stop" },
    ];
    const a = Attempt.parse({
      id: "u",
      source: { format: "fire-jsonl", path: "u.jsonl" },
      taskId: "u",
      taskText: TASK,
      outcome: "fail",
      events,
    });
    const pytest = toolCalls(a).find((c) => c.callId === "b");
    expect(pytest && seenByAgent(a, pytest)).toBe(false);
    // the same shape with a completion tool is read as unseen
    const withTool = Attempt.parse({
      ...a,
      events: events.map((e) =>
        e.callId === "c" && e.kind === "tool_call"
          ? { ...e, tool: "submit", command: undefined }
          : e,
      ),
    });
    const p2 = toolCalls(withTool).find((c) => c.callId === "b");
    expect(p2 && seenByAgent(withTool, p2)).toBe(false);
  });
  it("echo TASK_COMPLETE (the doc's 'a task done' word, alone) is no declaration", () => {
    expect(
      fires([edit, { cmd: "echo TASK_COMPLETE && git diff", out: `TASK_COMPLETE\n${diff}` }]),
    ).toBe(true);
  });
  it("held: a mid-run upper-case SUBMIT word followed by more turns is seen", () => {
    expect(
      fires([
        edit,
        { cmd: "python -m pytest -q && echo READY_TO_SUBMIT", out: "3 passed\nREADY_TO_SUBMIT" },
        { say: "Good." },
      ]),
    ).toBe(false);
    expect(fires([edit, { cmd: "echo DONE && git diff", out: `DONE\n${diff}` }])).toBe(false);
  });
});
