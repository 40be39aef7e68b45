import { describe, expect, it } from "vitest";
import { stopNoCheck } from "../../../src/core/mine/detectors/stop-no-check.js";
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
