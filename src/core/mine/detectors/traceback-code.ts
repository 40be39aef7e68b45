/**
 * The test's own source in a pytest failure report. pytest prints each failing test's code
 * before the error: indented lines, the failing one marked `>`, then the `E   ` lines of what
 * went wrong. A message written in that code (`assert p.exists(), "out.txt is missing"`) is what
 * the test would say if that assertion failed, not what happened: only the `E` lines, the
 * location lines and the captured output say what happened.
 */

/** A failing test's section header: `____ test_name ____` (`_ _ _` separators are not). */
const SECTION = /^_{3,} .*\S.* _{3,}\s*$/;
/** A captured-output block inside a section: `---- Captured stdout call ----`. */
const CAPTURED = /^-{3,} Captured .* -{3,}\s*$/;
/** A report-level header (`==== FAILURES ====`, `==== short test summary info ====`). */
const BANNER = /^={3,}.*={3,}\s*$/;
/** pytest's report: its session banner or the banner of its failure sections. */
const PYTEST = /={3,} (?:test session starts|FAILURES|ERRORS) ={3,}/;
/** A source line of the test as pytest prints it: the failing line (`>`) or an indented one. */
const CODE = /^(?:>|[ \t]+\S)/;

/**
 * `text` (a pytest report) with every source line of a failing test's traceback blanked (each character a space,
 * so offsets and line numbers stay where they were): what scans for claims should read.
 */
export function withoutTracebackCode(text: string): string {
  if (!text.includes("___") || !PYTEST.test(text)) return text;
  const lines = text.split("\n");
  let code = false;
  let changed = false;
  for (const [i, raw] of lines.entries()) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (SECTION.test(line)) code = true;
    else if (CAPTURED.test(line) || BANNER.test(line)) code = false;
    else if (code && CODE.test(line)) {
      lines[i] = " ".repeat(raw.length);
      changed = true;
    }
  }
  return changed ? lines.join("\n") : text;
}
