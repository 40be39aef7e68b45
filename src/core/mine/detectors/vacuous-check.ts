import { failingTests } from "../../ingest/verifier-tests.js";
import { baseName } from "./paths.js";
import { commandOf, outputOf, segments, TEST_RE, toolCalls } from "./shell.js";
import type { Detector } from "./types.js";

/** A test module by its name: `test_x.py`, `x_test.py`, `tests.py`. */
const TEST_MODULE = /^(?:test[\w-]*|[\w-]+_test|tests?)\.py$/;
/** `python3 [-u …] path.py …`, the module run as a script (not `-m pytest`, not `-c`). */
const RUN_AS_SCRIPT = /^(?:\S*\/)?python[\d.]*\s+(?:-[A-Za-z]\S*\s+)*([^\s;&|<>]+\.py)\b/;
/** What a shell prints that is not the program's own output: exit-status lines. */
const STATUS_LINE = /^\s*(?:\[exit_code=\d+\]|exit(?:\s*code)?\s*[:=]?\s*\d+|\(no output\))\s*$/i;

/** The output a call printed, without exit-status lines (empty when the program said nothing). */
function ownOutput(text: string): string {
  return text
    .split("\n")
    .filter((l) => !STATUS_LINE.test(l))
    .join("\n")
    .trim();
}

/**
 * A check that could not fail, read as a pass: a test module run as a plain script (which only
 * defines test functions, so nothing runs) printed nothing, and no later call ran that module
 * under a test runner. The silent exit 0 is no evidence the deliverable works.
 */
export const vacuousCheck: Detector = {
  id: "check.vacuous",
  description: "a test module run as a script printed nothing, and was never run by a test runner",
  mechanism: "vacuous-check",
  detect(attempt) {
    if (attempt.outcome === "pass") return [];
    const calls = toolCalls(attempt);
    for (let i = calls.length - 1; i >= 0; i--) {
      const c = calls[i];
      const cmd = c ? commandOf(c) : undefined;
      if (!c || !cmd || TEST_RE.test(cmd)) continue;
      const module = segments(cmd)
        .map((s) => RUN_AS_SCRIPT.exec(s)?.[1])
        .find((p) => p !== undefined && TEST_MODULE.test(baseName(p)));
      if (!module || ownOutput(outputOf(attempt, c)) !== "") continue;
      const b = baseName(module);
      const ranLater = calls
        .slice(i + 1)
        .some((l) => (commandOf(l) ?? "").includes(b) && TEST_RE.test(commandOf(l) ?? ""));
      if (ranLater) return [];
      const graded = failingTests(attempt).some((t) => t.name.includes(b));
      return [
        {
          eventIndices: [c.index],
          reason: `ran ${module} as a script: it printed nothing (its tests never ran)${graded ? "; the verifier's failing test is in the same module" : ""}`,
          signature: "test module run as a script",
          subject: module,
        },
      ];
    }
    return [];
  },
};
