import { describe, expect, it } from "vitest";
import { editMissingFromDiff } from "../../../src/core/mine/detectors/edit-not-delivered.js";
import { attempt, type Step } from "./bash-attempt.js";

const TASK = "Fix the bug: boolean literals in annotations become cross-references.";
const F = "pkg/domains/python.py";
const read = { cmd: `nl -ba ${F} | sed -n '180,184p'`, out: "181  for i, node in x:" };
const sed = {
  cmd: `sed -i '183s/if node.strip():/if node.strip() and node not in BOOLS:/' ${F}`,
  out: "",
};
const hunk = (p: string) =>
  `diff --git a/${p} b/${p}\nindex 1..2 100644\n--- a/${p}\n+++ b/${p}\n@@ -1 +1 @@\n-a\n+b\n`;
const otherDiff = hunk("setup.py");
const hits = (steps: Step[], extra = {}) =>
  editMissingFromDiff.detect(attempt(TASK, steps, extra), {});

describe("edit-missing-from-diff on shapes a review found (session 49)", () => {
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
