import { describe, expect, it } from "vitest";
import { submissionWithoutFix } from "../../../src/core/mine/detectors/edit-not-delivered.js";
import { attempt } from "./bash-attempt.js";

const created = (path: string) =>
  `diff --git a/${path} b/${path}\nnew file mode 100644\nindex 0000000..8b13789\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1 @@\n+x\n`;
const submit = (out: string) => ({
  cmd: "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached",
  out,
});
const run = (task: string, out: string) =>
  submissionWithoutFix.detect(
    attempt(task, [{ cmd: "ls", out: "command.go\ncompletions.go\ngo.mod" }, submit(out)]),
    {},
  );

describe("submission-without-fix on shapes a review found (session 49)", () => {
  it("Go flat-layout package: the fix is a new file at the module root", () => {
    // cobra, gin, logrus, chi, mux ...: the package lives at the repository root
    const task =
      "Cobra should generate shell completion scripts for fish, as it does for bash and zsh.";
    expect(run(task, created("fish_completions.go"))).toEqual([]);
    expect(run(task, created("fish_completions.go") + created("fish_completions_test.go"))).toEqual(
      [],
    );
  });
  it("a new module whose name merely starts with check/temp/example", () => {
    const task =
      "Support saving and restoring training state; the trainer should resume from the last state.";
    expect(run(task, created("src/trainer/checkpoint.go"))).toEqual([]);
  });
});
