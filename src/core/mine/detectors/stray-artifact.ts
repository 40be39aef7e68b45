import { failingTests } from "../../ingest/verifier-tests.js";
import { baseName, escapeRe, extOf, namedFiles } from "./paths.js";
import { callSucceeded, commandOf, segments, toolCalls, writtenPaths } from "./shell.js";
import type { Detector } from "./types.js";

/** A build's output file: `gcc … -o out`, `rustc … -o out`, `go build -o out`. */
const BUILD_OUTPUT =
  /^(?:\S*\/)?(?:gcc|g\+\+|clang\+\+|clang|cc|c\+\+|rustc|go\s+build|nvcc|gfortran|ld)\b.*?\s-o\s*([^\s;&|<>]+)/;

/** A file name as a whole token in verifier text (`found: ['a.c', 'cmain']`, `/app/cmain`). */
export function mentionOf(name: string): RegExp {
  return new RegExp(`(?:^|[\\s'"\`/[(,])${escapeRe(name)}(?:$|[\\s'"\`\\]),:])`, "m");
}

const dirOf = (p: string): string => p.replace(/\/+$/, "").replace(/\/[^/]*$/, "");

/**
 * The agent left a by-product (a compiled binary, a scratch file) in the folder of a
 * deliverable the task names, never removed it, and the verifier's failure names it. Only
 * absolute paths are compared; the verifier naming the file is what makes it the failure.
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
        if (!mentionOf(b).test(said)) continue;
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
