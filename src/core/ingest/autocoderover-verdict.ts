/**
 * The verdict of an AutoCodeRover (v1) trial: the run's SWE-bench report
 * (`new_eval_results/report.json`, lists of instance ids: `generated`, `applied`, `resolved`, …)
 * and the harness's text log of the instance (`new_eval_results/logs/<instance>.<model>.eval.log`:
 * the patch applied, `Test Script: …`, the raw test output, `>>>>> All Tests Passed` /
 * `>>>>> Some Tests Failed`). The tests the grader wants are the task's FAIL_TO_PASS (targets)
 * and PASS_TO_PASS (regressions) in `meta.json`; their status is what the test output shows.
 */
import { join } from "node:path";
import { parsePyLiteral } from "./py-literal.js";
import { evalLogIn, testsShown } from "./swebench-eval-log.js";
import { outputTestOf } from "./swebench-report.js";
import { capTests, type VerifierTest } from "./verifier-tests.js";

export const EVAL_DIR = "new_eval_results";
export const REPORT = "report.json";
const LOGS = "logs";

/** The harness's log of an instance in a run folder, and the model its name carries. */
export function evalLogOf(
  runDir: string,
  instance: string,
): { file: string; model?: string } | undefined {
  return evalLogIn(join(runDir, EVAL_DIR, LOGS), instance);
}

/** A test list of `meta.json`: a Python (or JSON) list literal, or a list. */
export function testList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  if (typeof value !== "string" || !value.trim()) return [];
  try {
    const v = parsePyLiteral(value.trim()).value;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}

/**
 * The graded tests with the status the output shows for each (pytest, unittest / Django and
 * SymPy rows), and the message it printed for a failing one. A test the output does not show
 * passed when the run resolved the instance (the harness found every one passing), and is
 * `other` otherwise.
 */
export function gradedTests(
  groups: { target: string[]; regression: string[] },
  section: { text: string; firstLine: number } | undefined,
  file: string,
  resolved: boolean | undefined,
): VerifierTest[] {
  const seen = section ? testsShown(section, file) : new Map<string, VerifierTest>();
  const out: VerifierTest[] = [];
  for (const [role, names] of [
    ["target", groups.target],
    ["regression", groups.regression],
  ] as const) {
    for (const name of names) {
      const hit = outputTestOf(seen, name);
      if (hit) {
        const { name: _n, ...rest } = hit;
        out.push({ name, ...rest, role });
      } else out.push({ name, status: resolved ? "passed" : "other", role });
    }
  }
  return capTests(out);
}
