/**
 * A SWE-bench evaluation report, as the harness writes it (`report.json`, plain or keyed by the
 * instance id) or prints it in its log: one model for every importer of runs graded by it.
 */
import { z } from "zod";
import { capTests, type VerifierTest } from "./verifier-tests.js";

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
