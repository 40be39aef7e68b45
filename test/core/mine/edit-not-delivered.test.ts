import { describe, expect, it } from "vitest";
import {
  editMissingFromDiff,
  submissionWithoutFix,
} from "../../../src/core/mine/detectors/edit-not-delivered.js";
import { runDetectors } from "../../../src/core/mine/detectors/index.js";
import { substitutions } from "../../../src/core/mine/detectors/test-changes.js";
import { heuristicLabel } from "../../../src/core/mine/heuristic.js";
import { attempt, type Step } from "./bash-attempt.js";

const TASK = "Fix the bug: boolean literals in annotations become cross-references.";
const read = {
  cmd: "nl -ba pkg/domains/python.py | sed -n '180,184p'",
  out: "181  for i, node in x:",
};
const sed = {
  cmd: "sed -i '183s/if node.strip():/if node.strip() and node not in BOOLS:/' pkg/domains/python.py",
  out: "",
};
const otherDiff =
  "diff --git a/setup.py b/setup.py\nindex 1..2 100644\n--- a/setup.py\n+++ b/setup.py\n@@ -1 +1 @@\n-a\n+b\n";
const submit = (out: string) => ({
  cmd: "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached",
  out,
});
const hits = (steps: Step[], extra = {}) =>
  editMissingFromDiff.detect(attempt(TASK, steps, extra), {});

describe("an in-place substitution missing from the submitted diff (deliverable.edit-missing-from-diff)", () => {
  it("reads a line address and any delimiter as a substitution", () => {
    expect(substitutions(sed.cmd)).toEqual([
      {
        path: "pkg/domains/python.py",
        from: "if node.strip():",
        to: "if node.strip() and node not in BOOLS:",
      },
    ]);
    expect(substitutions("sed -i 's|a|b|g' x.py y.py").map((s) => s.path)).toEqual([
      "x.py",
      "y.py",
    ]);
    // no -i: sed prints, changes nothing
    expect(substitutions("sed 's/a/b/' x.py")).toEqual([]);
  });

  it("fires when the diff the run's last call printed names other files, or none", () => {
    const [hit] = hits([
      read,
      sed,
      { cmd: "python -m pytest tests", out: "3 passed" },
      submit(otherDiff),
    ]);
    expect(hit?.reason).toContain("pkg/domains/python.py is not in the diff");
    expect(hit?.reason).toContain("names setup.py");
    expect(hits([read, sed, submit("")])[0]?.reason).toContain("(empty)");
  });

  it("names artifact-never-written only for review: the diff is the run's own evidence", () => {
    const a = attempt(TASK, [read, sed, submit(otherDiff)]);
    const label = heuristicLabel(a, runDetectors(a, {}));
    expect(label.status).toBe("needs_review");
    expect(label.suspected?.map((s) => s.mechanismId)).toContain("artifact-never-written");
  });

  it("a reply the harness refused with the same substitution wrote nothing before it", () => {
    const refused = {
      cmd: sed.cmd,
      out: "Please always provide EXACTLY ONE action in triple backticks, found 2 actions.",
      exit: 1,
    };
    expect(hits([read, refused, sed, submit(otherDiff)]).length).toBe(1);
    // the same substitution that ran before it: the second one found nothing left to change
    expect(hits([read, sed, sed, submit(otherDiff)])).toEqual([]);
  });

  it("stays silent when the edit is in the diff, undone, redone or not the agent's to deliver", () => {
    const inDiff = otherDiff.replaceAll("setup.py", "pkg/domains/python.py");
    expect(hits([read, sed, submit(inDiff)])).toEqual([]);
    // written again afterwards: the later write decides
    const rewrite = { cmd: "cat > pkg/domains/python.py <<'EOF'\nx\nEOF", out: "" };
    expect(hits([read, sed, rewrite, submit(otherDiff)])).toEqual([]);
    // a checkout or a stash after it changes files it does not name
    expect(hits([read, sed, { cmd: "git stash", out: "Saved" }, submit(otherDiff)])).toEqual([]);
    // a committed change is not in a work-tree diff (diff-emptied-by-commit reads it)
    const commit = { cmd: "git commit -am fix", out: "1 file changed" };
    expect(hits([read, sed, commit, submit(otherDiff)])).toEqual([]);
    // a file the run created may be untracked; one it never looked at may be ignored
    const created = { cmd: "echo 'if node.strip():' > pkg/domains/python.py", out: "" };
    expect(hits([created, sed, submit(otherDiff)])).toEqual([]);
    expect(hits([sed, submit(otherDiff)])).toEqual([]);
    // outside the work tree, in scratch space, or after a `cd`
    const abs = { cmd: sed.cmd.replace("pkg/", "/usr/lib/python3/pkg/"), out: "" };
    expect(
      hits([
        { cmd: "cat /usr/lib/python3/pkg/domains/python.py", out: "x" },
        abs,
        submit(otherDiff),
      ]),
    ).toEqual([]);
    const cd = { cmd: `cd /elsewhere && ${sed.cmd}`, out: "" };
    expect(hits([read, cd, submit(otherDiff)])).toEqual([]);
    // a substitution that failed, or a run that passed
    expect(hits([read, { ...sed, exit: 1 }, submit(otherDiff)])).toEqual([]);
    expect(hits([read, sed, submit(otherDiff)], { outcome: "pass" })).toEqual([]);
  });

  it("reads no absence from a diff that was cut or scoped to some files", () => {
    const cut = `<warning>The output of your last command was too long.</warning><output_head>\n${otherDiff}`;
    expect(hits([read, sed, submit(cut)])).toEqual([]);
    expect(hits([read, sed, { cmd: "git diff setup.py", out: otherDiff }])).toEqual([]);
    expect(hits([read, sed, { cmd: "git diff HEAD -- setup.py", out: otherDiff }])).toEqual([]);
    expect(hits([read, sed, { cmd: "git --no-pager diff HEAD", out: otherDiff }]).length).toBe(1);
    expect(hits([read, sed, { cmd: "git diff --stat", out: " setup.py | 2 +-" }])).toEqual([]);
    expect(hits([read, sed, { cmd: "git diff HEAD~1", out: otherDiff }])).toEqual([]);
    // the diff is not the last call: later work may have changed what was delivered
    expect(hits([read, sed, submit(otherDiff), { cmd: "ls", out: "a" }])).toEqual([]);
  });
});

describe("a submitted diff of nothing but the agent's own new files (deliverable.submission-without-fix)", () => {
  const created = (path: string) =>
    `diff --git a/${path} b/${path}\nnew file mode 100644\nindex 0000000..8b13789\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1 @@\n+x\n`;
  const changed = otherDiff.replaceAll("setup.py", "src/main/java/a/Version.java");
  const run = (task: string, out: string, via: "echo" | "tool" = "echo", extra = {}) => {
    const a =
      via === "echo"
        ? attempt(task, [read, submit(out)], extra)
        : attempt(task, [read], {
            ...extra,
            events: [
              { index: 0, kind: "prompt", role: "user", input: task },
              { index: 1, kind: "tool_call", tool: "submit", input: "{}", callId: "s" },
              {
                index: 2,
                kind: "tool_result",
                callId: "s",
                output: out,
                exitCode: 0,
              },
              { index: 3, kind: "stop" },
            ],
          });
    return submissionWithoutFix.detect(a, {});
  };

  it("fires on a test module, a top-level file or a reproduction script the agent made", () => {
    expect(run(TASK, created("JacksonTest.java"), "tool")[0]?.reason).toContain(
      "holds only 1 file(s) it created itself (JacksonTest.java)",
    );
    expect(run(TASK, created("reproduce_npe.py") + created("new_reproduce_npe.py")).length).toBe(1);
    expect(run(TASK, created("src/test/java/a/VersionTest.java")).length).toBe(1);
    expect(run(TASK, created("scripts/repro_issue.py")).length).toBe(1);
  });

  it("stays silent when the code was changed, a new module was made, or the task asks for it", () => {
    expect(run(TASK, changed + created("reproduce.py"))).toEqual([]);
    // a new file inside the code is a change of the code (a new module the fix needs)
    expect(run(TASK, created("src/main/java/a/Sanitizer.java"))).toEqual([]);
    expect(run("Add a regression test for the parser.", created("tests/test_parser.py"))).toEqual(
      [],
    );
    expect(run("Create NOTES.md describing the fix.", created("NOTES.md"))).toEqual([]);
    // an empty diff, a cut one, a diff the agent printed without handing over, a run that passed
    expect(run(TASK, "")).toEqual([]);
    expect(run(TASK, `<output_head>${created("reproduce.py")}`)).toEqual([]);
    const shown = submissionWithoutFix.detect(
      attempt(TASK, [read, { cmd: "git diff", out: created("reproduce.py") }]),
      {},
    );
    expect(shown).toEqual([]);
    expect(run(TASK, created("reproduce.py"), "echo", { outcome: "pass" })).toEqual([]);
  });
});
