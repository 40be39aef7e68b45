import { describe, expect, it } from "vitest";
import { stopFailedCheck } from "../../../src/core/mine/detectors/stop-failed-check.js";
import { attempt, type Step } from "./bash-attempt.js";

const TASK = "Header.fromstring should accept bytes as well as str.";
const fix = {
  cmd: "sed -i 's/def fromstring(cls, data/def fromstring(cls, data: bytes/' pkg/header.py",
  out: "",
};
const module = "pkg/tests/test_header.py";
const bar = "=".repeat(10);
const setupError = [
  "_____ ERROR at setup of TestHeader.test_a _____",
  "E   pytest.PytestRemovedIn8Warning: Support for nose tests is deprecated",
  `E   ${module}::TestHeader::test_a is using nose-specific method: \`setup(self)\``,
  "/usr/lib/python3/site-packages/_pytest/python.py:898: PytestRemovedIn8Warning",
  "",
].join("\n");
const fires = (steps: Step[]) => stopFailedCheck.detect(attempt(TASK, steps), {}).length > 0;

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
    const out = `${setupError}${fixtureError}${bar} short test summary info ${bar}\nERROR ${module}::TestHeader::test_a - pytest.PytestRemovedIn8Warning\nERROR ${module}::test_roundtrip - TypeError: fromstring() missing 1 required...\n${bar} 3 passed, 2 errors in 0.41s ${bar}\n`;
    expect(fires([fix, { cmd: `pytest ${module}`, out, exit: 1 }])).toBe(true);
  });
  it("earlier run showed the nose warning; the last run of the module dies collecting on a SyntaxError", () => {
    const first = {
      cmd: `pytest ${module}`,
      out: `${setupError}${bar} 4 passed, 1 error in 0.3s ${bar}\n`,
      exit: 1,
    };
    const broken = { cmd: "sed -i 's/return cls(cards)/return cls(cards/' pkg/header.py", out: "" };
    const collect = [
      `${bar} ERRORS ${bar}`,
      `_____ ERROR collecting ${module} _____`,
      `${module}:3: in <module>`,
      "    from pkg.header import Header",
      'E     File "pkg/header.py", line 88',
      "E       return cls(cards",
      "E                       ^",
      "E   SyntaxError: '(' was never closed",
      `${bar} short test summary info ${bar}`,
      `ERROR ${module}`,
      "!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!",
      `${bar} 1 error in 0.12s ${bar}`,
      "",
    ].join("\n");
    expect(fires([fix, first, broken, { cmd: `pytest ${module}`, out: collect, exit: 2 }])).toBe(
      true,
    );
  });
  it("held: xfailed in the summary is not 'failed'", () => {
    const out = `${setupError}${bar} 3 passed, 1 xfailed, 1 error, 2 warnings in 0.3s ${bar}\n`;
    expect(fires([fix, { cmd: `pytest ${module}`, out, exit: 1 }])).toBe(false);
  });
});
