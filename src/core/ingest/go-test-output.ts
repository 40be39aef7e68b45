/**
 * `go test` output (`-v` or not): a test's verdict line, indented by its depth for subtests,
 *
 *     --- FAIL: TestWitnesses (0.52s)
 *         --- FAIL: TestWitnesses/hash_count_3 (0.52s)
 *             leak_test.go:77:
 *                 Error:      "20" is not less than or equal to "17"
 *     FAIL
 *     FAIL    github.com/org/repo/eth 1.072s
 *
 * and `--- PASS:` / `--- SKIP:` alike. A failing test's message is the lines indented under
 * its verdict line, up to the next verdict line or package summary; a parent whose only lines
 * are its subtests' takes none (the subtests say what failed).
 */
import { MAX_MESSAGE, plainText, type VerifierTest } from "./verifier-tests.js";

const VERDICT = /^(\s*)--- (FAIL|PASS|SKIP): (\S{1,400}) \([\d.]+s\)\s*$/;
/** Lines that end a test's output: the package's own verdict lines. */
const PACKAGE_LINE = /^(?:FAIL|ok|PASS)(?:\s|$)|^=== (?:RUN|PAUSE|CONT|NAME)\s/;

function status(word: string): VerifierTest["status"] {
  return word === "FAIL" ? "failed" : word === "PASS" ? "passed" : "skipped";
}

/** The tests `go test` printed verdicts for, in order, with where each was read. */
export function goTestRun(text: string, file?: string, firstLine = 1): VerifierTest[] {
  if (!text.includes("--- ")) return [];
  const lines = plainText(text).split("\n");
  const byName = new Map<string, VerifierTest>();
  for (let i = 0; i < lines.length; i++) {
    const m = VERDICT.exec(lines[i] ?? "");
    if (!m) continue;
    const indent = (m[1] ?? "").length;
    const name = m[3] ?? "";
    const test: VerifierTest = {
      name,
      status: status(m[2] ?? ""),
      ...(file ? { file } : {}),
      line: i + firstLine,
    };
    if (test.status === "failed") {
      const body: string[] = [];
      for (let j = i + 1; j < lines.length && body.join("\n").length < MAX_MESSAGE; j++) {
        const l = lines[j] ?? "";
        if (VERDICT.test(l) || PACKAGE_LINE.test(l)) break;
        if (!l.trim()) continue;
        // deeper than the verdict line: this test's own output
        if (l.length - l.trimStart().length <= indent) break;
        body.push(l.trim());
      }
      const message = body.join("\n").slice(0, MAX_MESSAGE).trim();
      if (message) test.message = message;
    }
    if (!byName.has(name)) byName.set(name, test);
  }
  return [...byName.values()];
}
