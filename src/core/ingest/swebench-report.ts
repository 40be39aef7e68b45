/**
 * A SWE-bench evaluation report, as the harness writes it (`report.json`, plain or keyed by the
 * instance id) or prints it in its log: one model for every importer of runs graded by it.
 */
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import { InputError } from "../errors.js";
import { readSmall } from "./fs-util.js";
import { validate } from "./json-file.js";
import { parsePyLiteral } from "./py-literal.js";
import { unittestKey, unittestRun } from "./unittest-output.js";
import { capTests, lineAt, pytestRun, type VerifierTest } from "./verifier-tests.js";

/** One instance's entry of a SWE-bench evaluation report. */
export const ReportEntry = z.looseObject({
  resolved: z.boolean(),
  patch_successfully_applied: z.boolean().nullish(),
  tests_status: z
    .record(
      z.string(),
      z.looseObject({
        success: z.array(z.string()).nullish(),
        failure: z.array(z.string()).nullish(),
      }),
    )
    .nullish(),
});
export type ReportEntry = z.infer<typeof ReportEntry>;

/** A report is the entry itself or `{ <instance_id>: entry }`. */
export const Report = z.union([ReportEntry, z.record(z.string(), ReportEntry)]);
export type Report = z.infer<typeof Report>;

/** The report's entry for an instance (a report is the entry or keyed by instance id). */
export function entryOf(value: Report, instance: string): ReportEntry | undefined {
  const v = value as ReportEntry | Record<string, ReportEntry>;
  return typeof (v as ReportEntry).resolved === "boolean"
    ? (v as ReportEntry)
    : (v as Record<string, ReportEntry>)[instance];
}

/**
 * The report a grader's log prints (the harness's `run_instance.log`: `… - INFO - report:
 * {'<instance>': {…}}`; OpenHands' evaluation log: `[<instance>] report: {…}`), a Python
 * dict: the last one in the text, as the instance's entry. Undefined when the log prints none
 * (or none for this instance); an error names the file and line of an unreadable one.
 */
export function loggedReport(
  text: string,
  file: string,
  instance: string,
): { entry: ReportEntry } | { error: InputError } | undefined {
  const m = /(?:\]|\s-|INFO:?) report: \{/g;
  let at = -1;
  for (let hit = m.exec(text); hit !== null; hit = m.exec(text)) at = hit.index + hit[0].length - 1;
  if (at === -1) return undefined;
  const line = lineAt(text, at);
  let value: unknown;
  try {
    value = parsePyLiteral(text, at).value;
  } catch (e) {
    return { error: new InputError(file, line, `report: ${(e as Error).message}`) };
  }
  const v = validate(file, value, Report, "a SWE-bench report", line);
  if (!v.ok) return { error: v.error };
  const entry = entryOf(v.value, instance);
  return entry ? { entry } : undefined;
}

/** The report's graded groups: what each asks of its tests. */
const GRADED: Readonly<Record<string, "target" | "regression">> = {
  FAIL_TO_PASS: "target",
  PASS_TO_PASS: "regression",
};

/** Test-level results of the graded groups, with what the grader wants of each test. */
export function reportTests(entry: ReportEntry, file: string): VerifierTest[] {
  const out: VerifierTest[] = [];
  for (const [group, s] of Object.entries(entry.tests_status ?? {})) {
    const role = GRADED[group];
    if (!role) continue;
    for (const name of s.failure ?? []) out.push({ name, status: "failed", role, file });
    for (const name of s.success ?? []) out.push({ name, status: "passed", role, file });
  }
  return capTests(out);
}

/** The failing tests of each graded group, one line each (`FAIL_TO_PASS failed: <test>`). */
export function failingLines(entry: ReportEntry): string[] {
  const lines: string[] = [];
  for (const [group, s] of Object.entries(entry.tests_status ?? {}))
    for (const name of s.failure ?? []) lines.push(`${group} failed: ${name}`);
  return lines;
}

/** The test output between the harness's markers, and the line it starts on. */
function testSection(text: string): { text: string; firstLine: number } {
  const start = text.indexOf(">>>>> Start Test Output");
  if (start === -1) return { text, firstLine: 1 };
  const from = text.indexOf("\n", start) + 1;
  const end = text.indexOf(">>>>> End Test Output", from);
  return { text: text.slice(from, end === -1 ? text.length : end), firstLine: lineAt(text, from) };
}

/**
 * What a graded test run printed about each test, by name: pytest's rows and failure
 * sections, unittest / Django rows and failure sections (keyed by `unittestKey`). A failure
 * section explains a test its row only marked; a failure is not hidden by a passing row.
 */
export function testsInOutput(
  text: string,
  file: string,
  firstLine: number,
): Map<string, VerifierTest> {
  const seen = new Map<string, VerifierTest>();
  for (const t of pytestRun(text, file, firstLine).tests) seen.set(t.name, t);
  for (const t of unittestRun(text, file, firstLine)) {
    const key = unittestKey(t.name);
    const prev = seen.get(key);
    const explains = t.message !== undefined && !prev?.message && t.status !== "passed";
    if (!prev || explains || (prev.status === "passed" && t.status !== "passed")) seen.set(key, t);
  }
  return seen;
}

/** The entry `testsInOutput` holds for a test named as a grader lists it. */
export function outputTestOf(
  seen: ReadonlyMap<string, VerifierTest>,
  name: string,
): VerifierTest | undefined {
  return seen.get(name) ?? seen.get(unittestKey(name));
}

/**
 * The report's failing tests with what the test run printed about each (the harness's
 * `test_output.txt`: pytest's `E` lines or summary message, a unittest / Django failure
 * section's exception), pointing at that line. A test the output does not explain keeps
 * the report as its source.
 */
export function withOutputMessages(
  tests: VerifierTest[],
  output: string,
  file: string,
): VerifierTest[] {
  const { text, firstLine } = testSection(output);
  const found = testsInOutput(text, file, firstLine);
  return tests.map((t) => {
    if (t.message || (t.status !== "failed" && t.status !== "error")) return t;
    const hit = outputTestOf(found, t.name);
    return hit?.message
      ? { ...t, message: hit.message, file, ...(hit.line !== undefined ? { line: hit.line } : {}) }
      : t;
  });
}

/**
 * The report's tests, with the failing ones explained by the harness's `test_output.txt`
 * beside a `report.json` (the SWE-bench harness writes both into the instance's folder).
 */
export function reportTestsWithOutput(entry: ReportEntry, file: string): VerifierTest[] {
  const tests = reportTests(entry, file);
  if (basename(file) !== "report.json" || !tests.some((t) => t.status !== "passed")) return tests;
  const outFile = join(dirname(file), "test_output.txt");
  const output = readSmall(outFile, 8 << 20);
  return output === undefined ? tests : withOutputMessages(tests, output, outFile);
}
