import type { Condition, TrackRule } from "../policy/schema.js";
import type { MechanismTemplate } from "./mechanism-template.js";
import { FULL_LISTING, NAMED_FILE, WRITE_CALL } from "./shapes.js";

/**
 * Templates for the checking mechanisms: a test module run as a plain script (a check that
 * cannot fail), a by-product left beside the deliverable, and a fix submitted without the
 * existing tests it broke. Each reads commands only, never a task's own names.
 */

/** A test module run as a script: `python3 [-u] …/test_x.py`, `python x_test.py`. */
const SCRIPT_TEST =
  "(?:^|[\\s;&|(])python[0-9.]*\\s+(?:-[A-Za-z]\\S*\\s+)*\\S*(?:test[\\w-]*|[\\w-]+_test)\\.py\\b";
/** A test runner: pytest, unittest, tox, nox. */
const TEST_RUNNER = "\\b(?:pytest|py\\.test|unittest|tox|nox)\\b";
/** A build that names its output file (`gcc … -o out`, `go build -o out`). */
const BUILD_OUTPUT =
  "\\b(?:gcc|g\\+\\+|clang\\+\\+|clang|cc|rustc|go\\s+build|nvcc|gfortran)\\b[^\\n;&|]*\\s-o\\s*\\S+";

export const VACUOUS_CHECK: MechanismTemplate = {
  mechanismId: "vacuous-check",
  id: "tmpl-vacuous-check",
  version: 1,
  requires: [],
  fallback: [{ pattern: "\\btests?\\b|\\bverify\\b|\\bcheck\\b", flags: "i" }],
  build: () => ({
    family: "vacuous-check",
    title: "A test module run as a plain script read as a pass",
    chain: {
      state:
        "The agent ran a test module with `python file.py`, which only defines test functions, so nothing ran; it is stopping without running the module under a test runner.",
      intervention:
        "At stop, instruct running the module under a test runner and reading its result.",
      behavior: "A test runner is run after the script run.",
      verifier: "The grader runs the test functions; a silent exit 0 proved nothing.",
    },
    track: [
      { id: "script", at: "tool", when: { command: { pattern: SCRIPT_TEST } }, record: "script" },
      { id: "runner", at: "tool", when: { command: { pattern: TEST_RUNNER } }, record: "runner" },
    ],
    rules: [
      {
        id: "run-under-runner",
        at: "stop",
        when: { recorded: "script", not: { steps: "runner > script" } },
        action: "instruct",
        message:
          "Before you stop: running a test module with `python file.py` only defines its test functions, so nothing ran and a silent exit 0 proves nothing. Run it with `python -m pytest -q <file>` (or call the test function), read the result, and fix what fails.",
      },
    ],
    behavior: { steps: "runner > script" },
  }),
};

export const STRAY_ARTIFACT_LEFT: MechanismTemplate = {
  mechanismId: "stray-artifact-left",
  id: "tmpl-stray-artifact-left",
  version: 1,
  requires: [],
  fallback: [NAMED_FILE],
  build: () => ({
    family: "stray-artifact-left",
    title: "A by-product left beside the deliverable in the graded folder",
    chain: {
      state:
        "The agent built or wrote by-products (a compiled binary, a scratch file) while testing and is stopping without having listed the deliverable's folder since.",
      intervention:
        "At stop, instruct listing each deliverable's folder and removing what the task did not ask for.",
      behavior: "A full listing after the last build.",
      verifier: "Graders often require the folder to hold exactly the deliverables.",
    },
    track: [
      { id: "built", at: "tool", when: { command: { pattern: BUILD_OUTPUT } }, record: "built" },
      { id: "listed", at: "tool", when: FULL_LISTING, record: "listed" },
    ],
    rules: [
      {
        id: "clean-graded-folder",
        at: "stop",
        when: { recorded: "built", not: { steps: "listed > built" } },
        action: "instruct",
        message:
          "Before you stop: list the folder of every file the task asks for (`ls -la <folder>`) and remove the build outputs, scratch files and test programs you created there. Leave exactly what the task asks for.",
      },
    ],
    behavior: { steps: "listed > built" },
  }),
};

export const REGRESSION_UNCHECKED: MechanismTemplate = {
  mechanismId: "regression-unchecked",
  id: "tmpl-regression-unchecked",
  version: 1,
  requires: [],
  fallback: [{ pattern: "\\b(?:fix|bug|issue|error|regression|patch|broken)\\b", flags: "i" }],
  build: () => ({
    family: "regression-unchecked",
    title: "Fix submitted without running the existing tests it could break",
    chain: {
      state:
        "The agent changed code and is stopping without running the project's existing tests since its last change (only its own reproduction script).",
      intervention:
        "At stop, instruct running the existing tests of every module changed and fixing what broke.",
      behavior: "A test runner is run after the last write.",
      verifier: "The grader also runs tests that passed before the change.",
    },
    track: [
      { id: "edit", at: "tool", when: WRITE_CALL, record: "edit" },
      { id: "suite", at: "tool", when: { command: { pattern: TEST_RUNNER } }, record: "suite" },
    ],
    rules: [
      {
        id: "run-existing-tests",
        at: "stop",
        when: { recorded: "edit", not: { steps: "suite > edit" } },
        action: "instruct",
        message:
          "Before you submit: run the existing tests of every module you changed (for example `python -m pytest -q <tests of that module>`), not only your reproduction script, and fix every test your change broke.",
      },
    ],
    behavior: { steps: "suite > edit" },
  }),
};

/** A test suite run: the runners of the common ecosystems, or a tests script. */
const SUITE_RUN = `${TEST_RUNNER}|\\b(?:npm (?:run )?test|yarn test|pnpm test|go test|cargo test|make (?:test|check)|ctest|jest|vitest|mocha|mvn test|gradle test|bats|phpunit|rspec)\\b|\\btests?\\.(?:sh|py)\\b`;

/** Tracking of the last test suite run: `suite_failed` is set while its last run failed. */
const SUITE_TRACK: TrackRule[] = [
  {
    id: "suite",
    at: "tool",
    when: { command: { pattern: SUITE_RUN } },
    set: ["suite_pending"],
  },
  {
    id: "other-call",
    at: "tool",
    when: { not: { command: { pattern: SUITE_RUN } } },
    clear: ["suite_pending"],
  },
  {
    id: "suite-failed",
    at: "tool_result",
    when: { flag: "suite_pending", status: "failed" },
    set: ["suite_failed"],
    clear: ["suite_pending"],
  },
  {
    id: "suite-passed",
    at: "tool_result",
    when: { flag: "suite_pending", status: "ok" },
    clear: ["suite_pending", "suite_failed"],
  },
];

export const STOP_AFTER_FAILED_CHECK: MechanismTemplate = {
  mechanismId: "stop-after-failed-check",
  id: "tmpl-stop-after-failed-check",
  version: 1,
  requires: [],
  fallback: [{ pattern: "\\btests?\\b|\\bverify\\b|\\bcheck\\b|\\bpass\\b", flags: "i" }],
  build: () => ({
    family: "stop-after-failed-check",
    title: "Stopped while its own last test run was failing",
    chain: {
      state:
        "The agent's last test run exited with a failure and it is stopping without a passing run since.",
      intervention:
        "At stop, instruct reading the failures, fixing them and running the tests again.",
      behavior: "No failing test run is left without a passing run after it.",
      verifier:
        "The grader runs the same or stricter tests; what failed for the agent fails there.",
    },
    track: SUITE_TRACK,
    rules: [
      {
        id: "fix-failing-tests",
        at: "stop",
        when: { flag: "suite_failed" },
        action: "instruct",
        message:
          "Before you stop: your last test run failed. Read its failures, fix them and run the tests again until they pass. If a failure cannot be fixed, say which test still fails and why.",
      },
    ],
    behavior: { unset: "suite_failed" },
  }),
};

/**
 * A test module by its path: a source file in a tests folder, or one named as the common runners
 * name test modules (`x.test.ts`, `test_x.py`, `x_test.go`, `XTest.java`); fixtures, data and
 * documents in a tests folder are none. `TEST_MODULE` is the same inside a command.
 */
const CODE_EXT = "(?:py|[cm]?[jt]sx?|go|rb|rs|java|kt|php|cs)";
const TEST_FILE = `(?:^|/)(?:tests?|__tests__|specs?)/\\S*\\.${CODE_EXT}$|(?:^|/)test_[^/\\s]+\\.py$|[^/\\s]\\.(?:test|spec)\\.[cm]?[jt]sx?$|[^/\\s]_test\\.(?:py|go|rb)$|[^/\\s]Tests?\\.(?:java|kt|cs)$`;
const TEST_MODULE = `(?:^|[\\s/'"])(?:(?:tests?|__tests__|specs?)/\\S*\\.${CODE_EXT}|test_\\w+\\.py|\\w+\\.(?:test|spec)\\.[cm]?[jt]sx?|\\w+_test\\.(?:py|go|rb))\\b`;
const TEST_CHANGE: Condition = {
  any: [
    { writes: TEST_FILE },
    {
      command: {
        pattern: `(?:^|[;&|]\\s*)(?:git\\s+)?(?:rm|mv)\\s[^;&|]*${TEST_MODULE}|\\bsed\\s+-i[^;&|]*${TEST_MODULE}`,
      },
    },
  ],
};

export const EDITED_TEST_TO_PASS: MechanismTemplate = {
  mechanismId: "edited-test-to-pass",
  id: "tmpl-edited-test-to-pass",
  version: 1,
  requires: [],
  fallback: [{ pattern: "\\btests?\\b|\\bspec\\b|\\bpass\\b", flags: "i" }],
  build: () => ({
    family: "edited-test-to-pass",
    title: "A failing test weakened or deleted instead of fixing the code",
    chain: {
      state:
        "The agent's last test run failed and it is changing or deleting a test file rather than the code the test checks.",
      intervention:
        "At an edit of a test file while the last test run is failing, instruct checking the test against the task and fixing the code when the task asks for what the test checks.",
      behavior: "No test file is changed while the last test run is failing.",
      verifier: "The grader runs its own tests of the behaviour the weakened test checked.",
    },
    track: [
      ...SUITE_TRACK,
      {
        id: "test-changed",
        at: "tool",
        when: { flag: "suite_failed", ...TEST_CHANGE },
        set: ["test_changed_on_failure"],
      },
    ],
    rules: [
      {
        id: "fix-code-not-test",
        at: "tool",
        when: { flag: "suite_failed", ...TEST_CHANGE },
        action: "instruct",
        message:
          "Your last test run failed, and this call changes a test. Before you loosen, rewrite or delete a test to make it pass: compare what it asserts with the task. If the task asks for that behaviour, fix the code instead and keep the test. Change a test only when the test itself is wrong, and say why.",
      },
    ],
    behavior: { unset: "test_changed_on_failure" },
  }),
};
