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
