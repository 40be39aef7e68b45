import { failingTests } from "../../ingest/verifier-tests.js";
import { baseName, callText, escapeRe, extOf, namedFiles } from "./paths.js";
import { callSucceeded, commandOf, isWrite, segments, toolCalls, writtenPaths } from "./shell.js";
import type { Detector } from "./types.js";

/** A build's output file: `gcc … -o out`, `rustc … -o out`, `go build -o out`. */
const BUILD_OUTPUT =
  /^(?:\S*\/)?(?:gcc|g\+\+|clang\+\+|clang|cc|c\+\+|rustc|go\s+build|nvcc|gfortran|ld)\b.*?\s-o\s*([^\s;&|<>]+)/;

/** A file name as a whole token in verifier text (`found: ['a.c', 'cmain']`, `/app/cmain`). */
export function mentionOf(name: string): RegExp {
  return new RegExp(`(?:^|[\\s'"\`/[(,])${escapeRe(name)}(?:$|[\\s'"\`\\]),:])`, "m");
}

/**
 * Words of a report that a file should not be there: `unexpected files`, `extra file`,
 * `should not exist`, `Expected only a.c, found: ['a.c', 'cmain']`.
 */
const STRAY_CUE =
  /\b(?:unexpected|extra(?:neous)?|stray|left\s?over|untracked|additional\s+files?)\b|\b(?:should|must)\s+not\s+(?:exist|be\s+(?:there|present|left|created))\b|\bshouldn't\s+exist\b|\bfound\s*:\s*[[({]/i;

/**
 * A traceback frame or a source reference: Python's `File "/app/x.py", line 3`, a stack's
 * `at f (/app/x.js:3:5)`, a compiler's or pytest's `x.c:12:` (the file ran, it was not
 * reported as left over).
 */
const FRAME = /\bFile\s+"[^"\n]{0,400}",\s+line\s+\d|^\s*at\s|\.\w{1,8}:\d+[:)]/;

/**
 * The verifier line that reports the file `name` as one that should not be there: the name
 * as a whole token on a line that is no traceback frame, with a report's words on it or on
 * one of the three lines above (a heading over a listing). Undefined when no line does.
 */
export function strayReportLine(name: string, text: string): string | undefined {
  const mention = mentionOf(name);
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] ?? "";
    if (!mention.test(l) || FRAME.test(l)) continue;
    const around = lines.slice(Math.max(0, i - 3), i + 1).filter((x) => !FRAME.test(x));
    if (around.some((x) => STRAY_CUE.test(x))) return l;
  }
  return undefined;
}

/**
 * Whether code the agent wrote loads `file` (an import, require or include of its module
 * name): a module the deliverable uses is part of it, not a by-product.
 */
export function importedBy(file: string, code: string): boolean {
  const base = escapeRe(baseName(file));
  const mod = escapeRe(baseName(file).replace(/\.[^.]*$/, ""));
  if (mod.length === 0) return false;
  const quoted = `['"][^'"\\n]{0,200}\\b${mod}(?:\\.\\w{1,8})?['"]`;
  return new RegExp(
    [
      `\\bimport\\s+(?:[\\w.]{0,200}\\.)?${mod}\\b`,
      `\\bfrom\\s+(?:[\\w.]{0,200}\\.)?${mod}\\s+import\\b`,
      `\\brequire(?:_relative)?\\s*\\(?\\s*${quoted}`,
      `\\b(?:from|import)\\s+${quoted}`,
      `#\\s*include\\s*[<"][^>"\\n]{0,200}\\b${base}[>"]`,
      `\\bmod\\s+${mod}\\s*;`,
      `(?:^|[;&|]\\s*)(?:source|\\.)\\s+\\S{0,200}\\b${base}\\b`,
    ].join("|"),
    "m",
  ).test(code);
}

const dirOf = (p: string): string => p.replace(/\/+$/, "").replace(/\/[^/]*$/, "");

/**
 * The agent left a by-product (a compiled binary, a scratch file) in the folder of a
 * deliverable the task names, never removed it, and the verifier's failure reports it as a
 * file that should not be there. Only absolute paths are compared; the verifier reporting
 * the file is what makes it the failure. A traceback through the file, or a module the
 * agent's code imports, is the deliverable at work, not a by-product.
 */
export const strayArtifact: Detector = {
  id: "output.stray-artifact",
  description: "a by-product left beside the deliverable, named by the verifier's failure",
  mechanism: "stray-artifact-left",
  detect(attempt) {
    if (attempt.outcome === "pass") return [];
    const named = namedFiles(attempt.taskText).filter((n) => n.startsWith("/"));
    if (named.length === 0) return [];
    const dirs = new Set(named.map(dirOf));
    const namedBases = new Set(named.map(baseName));
    const failed = failingTests(attempt)
      .map((t) => t.message ?? "")
      .join("\n");
    const said = failed || (attempt.verifierOutput ?? "");
    const calls = toolCalls(attempt);
    for (const [i, c] of calls.entries()) {
      const cmd = commandOf(c) ?? "";
      // a build's output exists only if the build succeeded (a failed `gcc -o x` leaves no x)
      const built = callSucceeded(attempt, c)
        ? segments(cmd).flatMap((s) => BUILD_OUTPUT.exec(s)?.[1] ?? [])
        : [];
      for (const p of [...writtenPaths(c), ...built]) {
        const b = baseName(p);
        if (!p.startsWith("/") || !dirs.has(dirOf(p)) || namedBases.has(b)) continue;
        // a report that the file should not be there, not a frame of code that ran
        if (strayReportLine(b, said) === undefined) continue;
        // a module the deliverable loads is part of it
        const others = calls.filter(isWrite).filter((w) => !writtenPaths(w).includes(p));
        if (importedBy(p, others.map(callText).join("\n"))) continue;
        const removed = calls
          .slice(i + 1)
          .some((l) => /\brm\b/.test(commandOf(l) ?? "") && (commandOf(l) ?? "").includes(b));
        if (removed) continue;
        return [
          {
            eventIndices: [c.index],
            reason: `left ${p} beside the deliverable in ${dirOf(p)}; the verifier's failure names it`,
            signature: `by-product ${extOf(p) || "binary"}`,
            subject: p,
          },
        ];
      }
    }
    return [];
  },
};
