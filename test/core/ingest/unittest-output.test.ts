import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { Report, reportTestsWithOutput } from "../../../src/core/ingest/swebench-report.js";
import { unittestKey, unittestRun } from "../../../src/core/ingest/unittest-output.js";
import { REPO_ROOT } from "../../helpers/paths.js";

/** A real SWE-bench harness result of a Django instance (test/fixtures/swebench-unittest). */
const DIR = resolve(REPO_ROOT, "test/fixtures/swebench-unittest/django__django-11276");

describe("unittest output (Django's runner under the SWE-bench harness, real)", () => {
  it("reads each failure section's exception as its test's message", () => {
    const file = `${DIR}/test_output.txt`;
    const tests = unittestRun(readFileSync(file, "utf8"), file);
    const t = tests.find((x) => x.name.startsWith("test_password_help_text "));
    expect(t?.status).toBe("failed");
    expect(t?.message).toMatch(/^AssertionError: .*can&#39;t be too similar/);
    // the traceback's frames are not the message
    expect(t?.message).not.toMatch(/File "/);
    expect(readFileSync(file, "utf8").split("\n")[(t?.line ?? 0) - 1]).toMatch(
      /^FAIL: test_password_help_text/,
    );
    // verbose rows give the other tests' statuses
    expect(tests.filter((x) => x.status === "passed").length).toBeGreaterThan(100);
  });

  it("gives every failing test of the report the assertion its run printed", () => {
    const report = Report.parse(JSON.parse(readFileSync(`${DIR}/report.json`, "utf8")));
    const entry = Object.values(report as Record<string, never>)[0];
    const tests = reportTestsWithOutput(entry, `${DIR}/report.json`);
    const failing = tests.filter((t) => t.status === "failed");
    expect(failing.length).toBe(23);
    const explained = failing.filter((t) => t.message);
    // two names the harness's parser took from rows where a subtest's failure interrupted
    // the next test's row have no failure section of their own
    expect(explained.length).toBe(21);
    for (const t of explained) expect(t.file).toMatch(/test_output\.txt$/);
    const by = (name: string) => failing.find((t) => t.name === name)?.message;
    // named by its docstring, as the header's next line gives it
    expect(by("Safe strings in local variables are escaped.")).toMatch(/^AssertionError: /);
    // a test whose subtests failed: the first subtest's assertion
    expect(by("test_escape (utils_tests.test_html.TestUtilsHtml)")).toMatch(/&#x27;/);
  });

  it("reads the name forms of Python before and since 3.11 as one test", () => {
    expect(unittestKey("test_x (app.tests.T)")).toBe("app.tests.T.test_x");
    expect(unittestKey("test_x (app.tests.T.test_x)")).toBe("app.tests.T.test_x");
    const text = [
      "test_x (app.tests.T.test_x) ... FAIL",
      "",
      "======================================================================",
      "FAIL: test_x (app.tests.T.test_x)",
      "Checks x.",
      "----------------------------------------------------------------------",
      "Traceback (most recent call last):",
      '  File "/app/tests.py", line 3, in test_x',
      "    self.assertEqual(1, 2)",
      "AssertionError: 1 != 2",
      "",
      "----------------------------------------------------------------------",
      "Ran 1 test in 0.001s",
      "",
      "FAILED (failures=1)",
    ].join("\n");
    const [t] = unittestRun(text);
    expect(t).toMatchObject({ status: "failed", message: "AssertionError: 1 != 2", line: 4 });
  });
});
