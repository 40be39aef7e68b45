/**
 * The old SWE-bench harness's grading (2024 and before, `harness/run_evaluation.py`): a run
 * summary of instance-id lists (`generated`, `applied`, `resolved`, …; sb-cli and the newer
 * harness write `resolved_ids`, `unresolved_ids`, …) and one text log per instance
 * (`<instance>.<model>.eval.log`: the patch applied or not, `Test Script: …`, the raw test
 * output, `>>>>> All Tests Passed` / `>>>>> Some Tests Failed`). Shared by the importers of
 * runs graded by it (AutoCodeRover, SWE-agent).
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { readSmall } from "./fs-util.js";
import { testsInOutput } from "./swebench-report.js";
import { lineAt, MAX_MESSAGE, plainText, type VerifierTest } from "./verifier-tests.js";

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
/** A SymPy failure section's header: `____ sympy/x/tests/test_y.py:test_z ____`. */
const SYMPY_HEADER = /^_{2,} \S+\.py::?(test_\w+) _{2,}\s*$/;

/** The exception a SymPy failure section ends with (after its traceback's frames), capped. */
function sympyMessage(lines: string[], from: number): string | undefined {
  const body: string[] = [];
  for (let k = from; k < lines.length; k++) {
    const l = lines[k] ?? "";
    if (SYMPY_HEADER.test(l) || /^={5,} tests finished/.test(l)) break;
    body.push(l);
  }
  let last = -1;
  for (let i = 0; i < body.length; i++) if (/^\s+File "/.test(body[i] ?? "")) last = i;
  let at = last + 1;
  while (last >= 0 && at < body.length && /^\s/.test(body[at] ?? "")) at++;
  const text = body.slice(at).join("\n").trim();
  if (!text) return undefined;
  return text.length <= MAX_MESSAGE ? text : `${text.slice(0, MAX_MESSAGE - 1)}…`;
}

/** The tests SymPy's runner printed, each failing one with its section's exception. */
export function sympyRows(text: string, file: string, firstLine: number): VerifierTest[] {
  const out: VerifierTest[] = [];
  const lines = text.split("\n");
  const messages = new Map<string, string>();
  for (let i = 0; i < lines.length; i++) {
    const h = SYMPY_HEADER.exec(lines[i] ?? "");
    const msg = h ? sympyMessage(lines, i + 1) : undefined;
    if (h?.[1] && msg && !messages.has(h[1])) messages.set(h[1], msg);
  }
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
    const message =
      status === "failed" || status === "error" ? messages.get(m[1] ?? "") : undefined;
    out.push({
      name: m[1] ?? "",
      status,
      ...(message ? { message } : {}),
      file,
      line: i + firstLine,
    });
  }
  return out;
}

/**
 * Every test a log's test section shows, by name: pytest, unittest / Django rows and failure
 * sections, SymPy's rows (a name one runner gave is not taken again from another).
 */
export function testsShown(
  section: { text: string; firstLine: number },
  file: string,
): Map<string, VerifierTest> {
  const text = plainText(section.text);
  const seen = testsInOutput(text, file, section.firstLine);
  for (const t of sympyRows(text, file, section.firstLine))
    if (!seen.has(t.name)) seen.set(t.name, t);
  return seen;
}

/** The summary's lists that name the instance (`generated`, `applied`, `resolved`, …). */
export function listsNaming(report: Record<string, unknown>, instance: string): string[] {
  return Object.entries(report)
    .filter(([, v]) => Array.isArray(v) && v.includes(instance))
    .map(([k]) => k);
}

const EVAL_LOG = ".eval.log";

/** The harness's log of an instance in a logs folder (`<instance>.<model>.eval.log`), and the model its name carries. */
export function evalLogIn(
  dir: string,
  instance: string,
): { file: string; model?: string } | undefined {
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

/** The eval log's text, when it can be read. */
export function readEvalLog(file: string): string | undefined {
  return readSmall(file, 32 << 20);
}

/**
 * JSON text with the commas that close a list or an object dropped (`[1, 2,]`): the old
 * harness's summary is written so (a trailing comma after a list). Commas inside strings stay.
 */
export function withoutTrailingCommas(text: string): string {
  let out = "";
  let from = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === ",") {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j] ?? "")) j++;
      if (text[j] === "]" || text[j] === "}") {
        out += text.slice(from, i);
        from = i + 1;
      }
    }
  }
  return out + text.slice(from);
}
