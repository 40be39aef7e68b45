import { testsOf } from "../../ingest/verifier-tests.js";
import type { Attempt } from "../../model/attempt.js";
import { commandOf, segments, stopIndex, TEST_RE, toolCalls } from "./shell.js";
import type { Detector } from "./types.js";

/** A segment that runs Python tests: pytest, or python on a module (`-m pytest`, a script). */
const RUNS_TESTS = /^(?:\S*\/)?(?:python[\d.]*|pytest|py\.test|tox|nox)\b/;

/** A source file named on a command line (a runner given one runs only it). */
const TEST_FILE = /\.(?:py|[cm]?[jt]sx?|go|rb|rs|java|kt|php|ex|exs)\b/;

/** The file of a test id (`tests/x/test_a.py::T::t[1]` → `test_a.py`). */
const fileOf = (name: string): string => (name.split("::")[0] ?? name).split("/").pop() ?? name;

/** The verifier's graded groups: target tests the change must fix, regressions it must keep. */
function groups(a: Attempt) {
  const tests = testsOf(a);
  const target = tests.filter((t) => t.role === "target");
  const regressed = tests.filter(
    (t) => t.role === "regression" && (t.status === "failed" || t.status === "error"),
  );
  return { target, regressed };
}

/**
 * The verifier shows the change worked: every target test it names passed. A working result
 * confirmed by the grader itself, so capability evidence (regressions may still fail).
 */
export const targetTestsPassed: Detector = {
  id: "capability.target-tests-passed",
  description: "the verifier's target tests all passed (the fix itself worked)",
  capability: true,
  detect(attempt) {
    const { target } = groups(attempt);
    if (target.length === 0 || !target.every((t) => t.status === "passed")) return [];
    return [
      {
        eventIndices: [stopIndex(attempt)],
        reason: `the verifier's ${target.length} target test(s) passed`,
      },
    ];
  },
};

/**
 * The fix passed its target tests but broke tests that passed before, and no call ran the
 * files of those tests (nor a whole suite) after the agent's first edit: a check the agent
 * could have run before submitting.
 */
export const regressionUnchecked: Detector = {
  id: "check.regression-unchecked",
  description: "target tests pass, existing tests it broke were never run",
  mechanism: "regression-unchecked",
  detect(attempt) {
    const { target, regressed } = groups(attempt);
    if (regressed.length === 0 || target.length === 0) return [];
    if (!target.every((t) => t.status === "passed")) return [];
    const files = [...new Set(regressed.map((t) => fileOf(t.name)))];
    // any runner (pytest, jest, go test, cargo test, …) of those files, or of a whole suite
    const ran = toolCalls(attempt).some((c) =>
      segments(commandOf(c) ?? "").some((s) => {
        if (!RUNS_TESTS.test(s) && !TEST_RE.test(s)) return false;
        if (files.some((f) => s.includes(f) || s.includes(f.replace(/\.[^.]+$/, "")))) return true;
        // a runner given no test file runs a directory or the whole suite
        const runner = /^(?:\S*\/)?(?:pytest|py\.test|tox|nox)\b/.test(s) || TEST_RE.test(s);
        return runner && !TEST_FILE.test(s);
      }),
    );
    if (ran) return [];
    return [
      {
        eventIndices: [stopIndex(attempt)],
        reason: `broke ${regressed.length} existing test(s) in ${files.join(", ")}, never run before submitting`,
        signature: "existing tests not run",
      },
    ];
  },
};
