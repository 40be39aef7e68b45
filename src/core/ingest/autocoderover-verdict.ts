/**
 * The verdict of an AutoCodeRover (v1) trial: the run's SWE-bench report
 * (`new_eval_results/report.json`, lists of instance ids: `generated`, `applied`, `resolved`, …)
 * and the harness's text log of the instance (`new_eval_results/logs/<instance>.<model>.eval.log`:
 * the patch applied, `Test Script: …`, the raw test output, `>>>>> All Tests Passed` /
 * `>>>>> Some Tests Failed`). The tests the grader wants are the task's FAIL_TO_PASS (targets)
 * and PASS_TO_PASS (regressions) in `meta.json`; their status is what the test output shows.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { readSmall } from "./fs-util.js";
import { parsePyLiteral } from "./py-literal.js";
import { outputTestOf, testsInOutput } from "./swebench-report.js";
import { capTests, lineAt, plainText, type VerifierTest } from "./verifier-tests.js";

export const EVAL_DIR = "new_eval_results";
export const REPORT = "report.json";
const LOGS = "logs";
const EVAL_LOG = ".eval.log";

/** The harness's log of an instance in a run folder, and the model its name carries. */
export function evalLogOf(
  runDir: string,
  instance: string,
): { file: string; model?: string } | undefined {
  const dir = join(runDir, EVAL_DIR, LOGS);
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  const name = names.filter((n) => n.startsWith(`${instance}.`) && n.endsWith(EVAL_LOG)).sort()[0];
  if (!name) return undefined;
  const model = name.slice(instance.length + 1, name.length - EVAL_LOG.length);
  return { file: join(dir, name), ...(model ? { model } : {}) };
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
 * The part of the log that shows the tests: from `Test Script:` on, else from the line that
 * says the patch did not apply; with the file line it starts on.
 */
export function testSection(text: string): { text: string; firstLine: number } | undefined {
  let at = text.search(/^Test Script:/m);
  if (at === -1) at = text.search(/^>>>>> Patch Apply Failed/m);
  if (at === -1) return undefined;
  return { text: text.slice(at), firstLine: lineAt(text, at) };
}

/** The section cut to its last `cap` characters, from a line start, with its first line. */
export function cappedSection(
  section: { text: string; firstLine: number },
  cap: number,
): { text: string; firstLine: number } {
  if (section.text.length <= cap) return section;
  let from = section.text.length - cap;
  const nl = section.text.indexOf("\n", from);
  if (nl !== -1 && nl + 1 < section.text.length) from = nl + 1;
  return {
    text: section.text.slice(from),
    firstLine: section.firstLine + lineAt(section.text, from) - 1,
  };
}

/** SymPy's own runner (`bin/test --verbose`): one `test_x ok` / `F` / `E` row per test. */
const SYMPY_ROW = /^(test_\w+) (ok|F|E|f|X|s)\s*$/;
function sympyRows(text: string, file: string, firstLine: number): VerifierTest[] {
  const out: VerifierTest[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = SYMPY_ROW.exec(lines[i] ?? "");
    if (!m) continue;
    const w = m[2];
    const status: VerifierTest["status"] =
      w === "ok" || w === "f"
        ? "passed"
        : w === "F" || w === "X"
          ? "failed"
          : w === "E"
            ? "error"
            : "skipped";
    out.push({ name: m[1] ?? "", status, file, line: i + firstLine });
  }
  return out;
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
  const seen = new Map<string, VerifierTest>();
  if (section) {
    const text = plainText(section.text);
    for (const [k, t] of testsInOutput(text, file, section.firstLine)) seen.set(k, t);
    for (const t of sympyRows(text, file, section.firstLine))
      if (!seen.has(t.name)) seen.set(t.name, t);
  }
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

/** The report's lists that name the instance (`generated`, `applied`, `resolved`, …). */
export function listsNaming(report: Record<string, unknown>, instance: string): string[] {
  return Object.entries(report)
    .filter(([, v]) => Array.isArray(v) && v.includes(instance))
    .map(([k]) => k);
}

/** The eval log's text, when it can be read. */
export function readEvalLog(file: string): string | undefined {
  return readSmall(file, 32 << 20);
}
