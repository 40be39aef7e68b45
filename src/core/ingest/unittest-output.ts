/**
 * Python `unittest` output (and runners that print as it does: Django's `runtests.py`,
 * `python -m unittest`, nose): the failure sections
 *
 *     ======================================================================
 *     FAIL: test_x (package.module.Class)
 *     ----------------------------------------------------------------------
 *     Traceback (most recent call last):
 *       File "…", line 12, in test_x
 *         self.assertEqual(a, b)
 *     AssertionError: 1 != 2
 *
 * and, at verbosity 2, one row per test (`test_x (package.module.Class) ... ok`). A section's
 * message is what follows the traceback's last frame: the exception and its text.
 */
import { MAX_MESSAGE, plainText, type VerifierTest } from "./verifier-tests.js";

const RULE = /^={20,}$/;
const DASHES = /^-{20,}$/;
const HEADER = /^(FAIL|ERROR|UNEXPECTED SUCCESS): (.{1,500})$/;
const ROW =
  /^(\S.{0,400}?) \.\.\. (ok|FAIL|ERROR|skipped\b.*|expected failure|unexpected success)$/;
const FRAME = /^\s+File "/;

function rowStatus(word: string): VerifierTest["status"] {
  if (word === "ok" || word === "expected failure") return "passed";
  if (word === "FAIL" || word === "unexpected success") return "failed";
  if (word === "ERROR") return "error";
  return "skipped";
}

/** The exception a traceback ends with (everything after its last frame), capped. */
function tracebackMessage(body: string[]): string | undefined {
  let last = -1;
  for (let i = 0; i < body.length; i++) if (FRAME.test(body[i] ?? "")) last = i;
  let from = 0;
  if (last >= 0) {
    from = last + 1;
    // the frame's source line (indented) belongs to the frame
    while (from < body.length && /^\s/.test(body[from] ?? "")) from++;
  }
  const text = body.slice(from).join("\n").trim();
  if (!text) return undefined;
  return text.length <= MAX_MESSAGE ? text : `${text.slice(0, MAX_MESSAGE - 1)}…`;
}

/**
 * The tests a unittest-style output names: verbose rows and failure sections (a section's
 * exception is its test's message). Lines are 1-based in `text`, plus `firstLine - 1`.
 */
export function unittestRun(text: string, file?: string, firstLine = 1): VerifierTest[] {
  const lines = plainText(text).split("\n");
  const byName = new Map<string, VerifierTest>();
  const at = (i: number) => ({ ...(file ? { file } : {}), line: i + firstLine });
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] ?? "";
    const row = ROW.exec(l);
    if (row) {
      const name = row[1] ?? "";
      if (!byName.has(name)) byName.set(name, { name, status: rowStatus(row[2] ?? ""), ...at(i) });
      continue;
    }
    if (!RULE.test(l)) continue;
    const head = HEADER.exec(lines[i + 1] ?? "");
    if (!head) continue;
    // the header, an optional docstring line, then the dashes
    let j = i + 2;
    while (j < lines.length && j <= i + 4 && !DASHES.test(lines[j] ?? "")) j++;
    if (!DASHES.test(lines[j] ?? "")) continue;
    // a test with a docstring prints its first line under the header (Django's runner, and
    // SWE-bench's log parser, name the test by it)
    const doc = j === i + 3 ? (lines[i + 2] ?? "").trim() : "";
    const body: string[] = [];
    let k = j + 1;
    for (; k < lines.length; k++) {
      const b = lines[k] ?? "";
      if (RULE.test(b) || DASHES.test(b)) break;
      body.push(b);
    }
    const message = tracebackMessage(body);
    for (const name of doc ? [(head[2] ?? "").trim(), doc] : [(head[2] ?? "").trim()]) {
      // of a test's several failing subtests, the first explains it
      const prev = byName.get(name);
      if (prev && prev.status !== "passed" && prev.message) continue;
      byName.set(name, {
        name,
        status: head[1] === "ERROR" ? "error" : "failed",
        ...(message ? { message } : {}),
        ...at(i + 1),
      });
    }
    i = k - 1;
  }
  return [...byName.values()];
}

/**
 * A unittest name in the two forms Python prints it: `test_x (mod.Class)` before 3.11,
 * `test_x (mod.Class.test_x)` since; both read as `mod.Class.test_x` (what a subtest
 * prints after it dropped).
 */
export function unittestKey(name: string): string {
  // a subtest's decoration follows: `test_x (mod.Class) (v=1)`, Django's `… [<obj>] (v=1)`
  const m = /^(\w+) \(([\w.]+)\)(?: .*)?$/.exec(name.trim());
  if (!m) return name.trim();
  const method = m[1] ?? "";
  const where = m[2] ?? "";
  return where.endsWith(`.${method}`) ? where : `${where}.${method}`;
}
