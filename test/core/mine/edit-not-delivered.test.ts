import { describe, expect, it } from "vitest";
import { capText } from "../../../src/core/ingest/text.js";
import {
  editMissingFromDiff,
  submissionWithoutFix,
} from "../../../src/core/mine/detectors/edit-not-delivered.js";
import { runDetectors } from "../../../src/core/mine/detectors/index.js";
import { substitutions } from "../../../src/core/mine/detectors/test-changes.js";
import { heuristicLabel } from "../../../src/core/mine/heuristic.js";
import { Attempt } from "../../../src/core/model/attempt.js";
import { attempt, type Step } from "./bash-attempt.js";

const TASK = "Fix the bug: boolean literals in annotations become cross-references.";
const F = "pkg/domains/python.py";
const read = { cmd: `nl -ba ${F} | sed -n '180,184p'`, out: "181  for i, node in x:" };
const sed = {
  cmd: `sed -i '183s/if node.strip():/if node.strip() and node not in BOOLS:/' ${F}`,
  out: "",
};
/** A diff changing `p` in one hunk of `n` changed lines. */
const hunk = (p: string, n = 1) =>
  `diff --git a/${p} b/${p}\nindex 1..2 100644\n--- a/${p}\n+++ b/${p}\n@@ -1 +1 @@\n${"-a\n+b\n".repeat(n)}`;
const otherDiff = hunk("setup.py");
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

  it("fires on a test module or a reproduction script the agent made", () => {
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

describe("edit-missing-from-diff on shapes a review found", () => {
  it("debug print added then removed with sed: file deliberately not in diff", () => {
    const add = sed;
    const run = {
      cmd: "python -m pytest tests/test_domain_py.py -q",
      out: "1 failed, 40 passed in 2.1s",
      exit: 1,
    };
    const del = {
      cmd: `sed -i 's/if node.strip() and node not in BOOLS:/if node.strip():/' ${F}`,
      out: "",
    };
    const fix = { cmd: "sed -i 's/x = 1/x = 2/' pkg/other.py", out: "" };
    expect(
      hits([
        read,
        { cmd: "cat pkg/other.py", out: "x = 1" },
        add,
        run,
        del,
        fix,
        { cmd: "git diff", out: hunk("pkg/other.py") },
      ]),
    ).toEqual([]);
  });
  it("last call pipes the diff through head", () => {
    const big = hunk("pkg/a.py") + "+x\n".repeat(60);
    expect(
      hits([
        read,
        sed,
        { cmd: "git diff | head -50", out: big.split("\n").slice(0, 50).join("\n") },
      ]),
    ).toEqual([]);
  });
  it("last call writes the diff to a file", () => {
    expect(hits([read, sed, { cmd: "git diff > /tmp/fix.patch", out: "" }])).toEqual([]);
  });
  it("file staged earlier, last call unstaged git diff", () => {
    expect(
      hits([read, { ...sed, cmd: `${sed.cmd} && git add ${F}` }, { cmd: "git diff", out: "" }]),
    ).toEqual([]);
  });
  it("--no-prefix diff names the file", () => {
    const np = `diff --git ${F} ${F}\nindex 1..2 100644\n--- ${F}\n+++ ${F}\n@@ -1 +1 @@\n-a\n+b\n`;
    expect(hits([read, sed, { cmd: "git diff --no-prefix", out: np }])).toEqual([]);
  });
  it("file created by shell heredoc, read back, then sed'ed (untracked)", () => {
    const mk = { cmd: `cat > pkg/domains/helpers.py <<'EOF'\nBOOLS = {'True'}\nEOF`, out: "" };
    const rd = { cmd: "cat pkg/domains/helpers.py", out: "BOOLS = {'True'}" };
    const s = { cmd: "sed -i \"s/{'True'}/{'True', 'False'}/\" pkg/domains/helpers.py", out: "" };
    expect(hits([mk, rd, s, { cmd: "git diff", out: otherDiff }])).toEqual([]);
  });
  it("cp-created file then sed'ed (untracked)", () => {
    const mk = { cmd: "cp pkg/conf.py pkg/conf_new.py", out: "" };
    const rd = { cmd: "cat pkg/conf_new.py", out: "x = 1" };
    const s = { cmd: "sed -i 's/x = 1/x = 2/' pkg/conf_new.py", out: "" };
    expect(hits([mk, rd, s, { cmd: "git diff", out: otherDiff }])).toEqual([]);
  });
  it("cd in an earlier call (persistent shell), relative path, diff names full path: silent", () => {
    const cd = { cmd: "cd pkg/domains", out: "" };
    const r = { cmd: "cat python.py", out: "x" };
    const s = { cmd: "sed -i 's/a/b/' python.py", out: "" };
    expect(hits([cd, r, s, { cmd: "git diff", out: hunk(F) }])).toEqual([]);
    expect(
      hits([
        read,
        { ...sed, cmd: sed.cmd.replace(F, `./${F}`) },
        { cmd: "git diff", out: hunk(F) },
      ]),
    ).toEqual([]);
  });
});

describe("submission-without-fix on shapes a review found", () => {
  const created = (path: string) =>
    `diff --git a/${path} b/${path}\nnew file mode 100644\nindex 0000000..8b13789\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1 @@\n+x\n`;
  const run = (task: string, out: string) =>
    submissionWithoutFix.detect(
      attempt(task, [{ cmd: "ls", out: "command.go\ncompletions.go\ngo.mod" }, submit(out)]),
      {},
    );
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

describe("a diff fire's own cap cut", () => {
  it("a diff just over the cap, cut through a file header, is not read as whole", () => {
    // place F's header right after the head kept by the cap
    let pre = hunk("setup.py", 1);
    const headLen = 8000 - 2000 - `\n[… ${8001 - 2000} characters cut …]\n`.length;
    pre += `${"+".repeat(headLen - pre.length - 1)}\n`;
    const body = hunk(F, 1);
    let text = pre + body;
    text += `${"+b\n".repeat(Math.ceil((8001 - text.length) / 3))}`;
    text = text.slice(0, 8001);
    const { output, outputBytes } = capText(text, 8000);
    expect(output).not.toContain(`diff --git a/${F}`);
    const events = [
      { index: 0, kind: "prompt", role: "user", input: "Fix it." },
      { index: 1, kind: "tool_call", tool: "Bash", command: `cat ${F}`, callId: "r" },
      { index: 2, kind: "tool_result", callId: "r", output: "if node.strip():", exitCode: 0 },
      {
        index: 3,
        kind: "tool_call",
        tool: "Bash",
        command: `sed -i 's/if node.strip():/if node:/' ${F}`,
        callId: "s",
      },
      { index: 4, kind: "tool_result", callId: "s", output: "", exitCode: 0 },
      { index: 5, kind: "tool_call", tool: "Bash", command: "git diff", callId: "d" },
      { index: 6, kind: "tool_result", callId: "d", output, outputBytes, exitCode: 0 },
      { index: 7, kind: "stop" },
    ];
    const a = Attempt.parse({
      id: "u",
      source: { format: "fire-jsonl", path: "u.jsonl" },
      taskId: "u",
      taskText: "Fix it.",
      outcome: "fail",
      events,
    });
    expect(editMissingFromDiff.detect(a, {})).toEqual([]);
  });
});
