import { describe, expect, it } from "vitest";
import { stopFailedCheck } from "../../../src/core/mine/detectors/stop-failed-check.js";
import { attempt, type Step } from "./bash-attempt.js";

const TASK = "Header.fromstring should accept bytes as well as str.";
const fix = {
  cmd: "sed -i 's/def fromstring(cls, data/def fromstring(cls, data: bytes/' pkg/header.py",
  out: "",
};
const module = "pkg/tests/test_header.py";
const run = (summary: string, body = `ERROR ${module}::TestHeader::test_a\n`): Step => ({
  cmd: `pytest ${module}`,
  out: `${body}${"=".repeat(10)} ${summary} in 31.46s ${"=".repeat(10)}\n`,
  exit: 1,
});
const setupError = [
  "_____ ERROR at setup of TestHeader.test_a _____",
  "E   pytest.PytestRemovedIn8Warning: Support for nose tests is deprecated",
  `E   ${module}::TestHeader::test_a is using nose-specific method: \`setup(self)\``,
  "/usr/lib/python3/site-packages/_pytest/python.py:898: PytestRemovedIn8Warning",
  "",
].join("\n");
const fires = (steps: Step[]) => stopFailedCheck.detect(attempt(TASK, steps), {}).length > 0;

describe("a last check that only errored where pytest could not set its tests up", () => {
  it("is no failed check when this run or an earlier run of the module shows pytest's own warning", () => {
    expect(fires([fix, run("4 passed, 146 errors")])).toBe(true);
    expect(fires([fix, run("1 error", setupError), run("4 passed, 146 errors")])).toBe(false);
    expect(fires([fix, run("4 passed, 146 errors", setupError)])).toBe(false);
  });

  it("reads a run whose output was cut before its summary by its ERROR and FAILED lines", () => {
    const cut = (lines: string): Step => ({ cmd: `pytest ${module}`, out: lines, exit: 1 });
    const errors = `ERROR ${module}::TestHeader::test_a\nERROR ${module}::TestHeader::test_b`;
    expect(fires([fix, run("1 error", setupError), cut(errors)])).toBe(false);
    expect(
      fires([fix, run("1 error", setupError), cut(`${errors}\nFAILED ${module}::test_c`)]),
    ).toBe(true);
  });

  it("is still a failed check with a failed test, another module, or an error the code can cause", () => {
    expect(fires([fix, run("1 error", setupError), run("1 failed, 3 passed, 146 errors")])).toBe(
      true,
    );
    const other = { ...run("1 error", setupError), cmd: "pytest pkg/tests/test_card.py" };
    const otherOut = { ...other, out: other.out.replaceAll(module, "pkg/tests/test_card.py") };
    expect(fires([fix, otherOut, run("4 passed, 146 errors")])).toBe(true);
    const unraisable = setupError.replace(
      "PytestRemovedIn8Warning:",
      "PytestUnraisableExceptionWarning:",
    );
    expect(
      fires([
        fix,
        run("1 error", unraisable.replaceAll("PytestRemovedIn8Warning", "X")),
        run("146 errors"),
      ]),
    ).toBe(true);
  });
});

describe("pytest framework errors on shapes a review found (session 49)", () => {
  it("one nose-setup error plus a real fixture error caused by the agent's code in the same run", () => {
    const fixtureError = [
      "_____ ERROR at setup of test_roundtrip _____",
      "    @pytest.fixture",
      "    def header():",
      ">       return Header.fromstring(CARDS)",
      "E       TypeError: fromstring() missing 1 required positional argument: 'sep'",
      `${module}:12: TypeError`,
      "",
    ].join("\n");
    const out = `${setupError}${fixtureError}${"=".repeat(10)} short test summary info ${"=".repeat(10)}\nERROR ${module}::TestHeader::test_a - pytest.PytestRemovedIn8Warning\nERROR ${module}::test_roundtrip - TypeError: fromstring() missing 1 required...\n${"=".repeat(10)} 3 passed, 2 errors in 0.41s ${"=".repeat(10)}\n`;
    expect(fires([fix, { cmd: `pytest ${module}`, out, exit: 1 }])).toBe(true);
  });
  it("earlier run showed the nose warning; the last run of the module dies collecting on a SyntaxError", () => {
    const first = {
      cmd: `pytest ${module}`,
      out: `${setupError}${"=".repeat(10)} 4 passed, 1 error in 0.3s ${"=".repeat(10)}\n`,
      exit: 1,
    };
    const broken = { cmd: "sed -i 's/return cls(cards)/return cls(cards/' pkg/header.py", out: "" };
    const collect = [
      `${"=".repeat(10)} ERRORS ${"=".repeat(10)}`,
      `_____ ERROR collecting ${module} _____`,
      `${module}:3: in <module>`,
      "    from pkg.header import Header",
      'E     File "pkg/header.py", line 88',
      "E       return cls(cards",
      "E                       ^",
      "E   SyntaxError: '(' was never closed",
      `${"=".repeat(10)} short test summary info ${"=".repeat(10)}`,
      `ERROR ${module}`,
      "!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!",
      `${"=".repeat(10)} 1 error in 0.12s ${"=".repeat(10)}`,
      "",
    ].join("\n");
    expect(fires([fix, first, broken, { cmd: `pytest ${module}`, out: collect, exit: 2 }])).toBe(
      true,
    );
  });
  it("held: xfailed in the summary is not 'failed'", () => {
    const out = `${setupError}${"=".repeat(10)} 3 passed, 1 xfailed, 1 error, 2 warnings in 0.3s ${"=".repeat(10)}\n`;
    expect(fires([fix, { cmd: `pytest ${module}`, out, exit: 1 }])).toBe(false);
  });
});
