import { testsOf } from "../../ingest/verifier-tests.js";
import type { Attempt } from "../../model/attempt.js";
import { commandOf, segments, stopIndex, TEST_RE, toolCalls } from "./shell.js";
import type { Detector } from "./types.js";

/** A segment that runs Python tests: pytest, or python on a module (`-m pytest`, a script). */
const RUNS_TESTS = /^(?:\S*\/)?(?:python[\d.]*|pytest|py\.test|tox|nox)\b/;

/** A source file named on a command line (a runner given one runs only it). */
const TEST_FILE = /\.(?:py|[cm]?[jt]sx?|go|rb|rs|java|kt|php|ex|exs)\b/;

/** The file of a test id (`tests/x/test_a.py::T::t[1]` → `test_a.py`). */
const fileOf = (name: string): string => (name.split("::")[0] ?? name).split("/").pop() ?? name;

/**
 * The dotted id of a unittest-style test: `t (pkg.mod.Class)` (Django, unittest) or
 * `pkg.mod.Class.t` → `pkg.mod.Class.t`; none for a file-based id (`tests/a.py::t`).
 */
function dottedOf(name: string): string | undefined {
  const m = /^(\w+)\s+\(([\w.]+)\)$/.exec(name.trim());
  if (m) return `${m[2]}.${m[1]}`;
  return /^\w+(?:\.\w+)+$/.test(name) ? name : undefined;
}

/**
 * What a command names when it runs a test: its file and the file's stem; for a dotted id,
 * its module as a dotted name and as a path (`queries.tests`, `queries/tests`) and its class —
 * never the module's last part alone, which is often a folder every test command names
 * (`tests`).
 */
function namesOf(name: string): string[] {
  const dotted = dottedOf(name);
  if (!dotted) {
    const file = fileOf(name);
    return [file, file.replace(/\.[^.]+$/, "")];
  }
  const parts = dotted.split(".");
  const cls = parts.findIndex((p, i) => i > 0 && /^[A-Z]/.test(p));
  const module = parts.slice(0, cls > 0 ? cls : parts.length - 1);
  const out = module.length > 1 ? [module.join("."), module.join("/")] : [];
  return cls > 0 ? [...out, parts[cls] as string] : out;
}

/** A test-runner script that takes dotted labels (`tests/runtests.py model_fields.test_x`). */
const RUNNER_SCRIPT = /(?:^|\s)(?:\S*\/)?run[_-]?tests?\.(?:py|sh)(?=\s|$)/;

/**
 * The labels given to a runner script: its later words that are no option, no option's
 * value and no number. None: the script runs the whole suite.
 */
function labelsOf(seg: string): string[] {
  const m = RUNNER_SCRIPT.exec(seg);
  if (!m) return [];
  const words = seg
    .slice((m.index ?? 0) + m[0].length)
    .split(/\s+/)
    .filter(Boolean);
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    if (/^[|;&<>]/.test(w)) break;
    if (w.startsWith("-")) {
      if (!w.includes("=")) i++;
      continue;
    }
    if (!/^\d+$/.test(w)) out.push(w.replace(/^['"]|['"]$/g, ""));
  }
  return out;
}

/** A runner script's label covers a test: its dotted id or a dotted prefix of it. */
const covers = (label: string, name: string): boolean => {
  const dotted = dottedOf(name);
  return !!dotted && (dotted === label || dotted.startsWith(`${label}.`));
};

/** The verifier's graded groups: target tests the change must fix, regressions it must keep. */
function groups(a: Attempt) {
  const tests = testsOf(a);
  const target = tests.filter((t) => t.role === "target");
  const regressed = tests.filter(
    (t) => t.role === "regression" && (t.status === "failed" || t.status === "error"),
  );
  return { target, regressed };
}

/**
 * The verifier shows the change worked: every target test it names passed. A working result
 * confirmed by the grader itself, so capability evidence (regressions may still fail).
 */
export const targetTestsPassed: Detector = {
  id: "capability.target-tests-passed",
  description: "the verifier's target tests all passed (the fix itself worked)",
  capability: true,
  detect(attempt) {
    const { target } = groups(attempt);
    if (target.length === 0 || !target.every((t) => t.status === "passed")) return [];
    return [
      {
        eventIndices: [stopIndex(attempt)],
        reason: `the verifier's ${target.length} target test(s) passed`,
      },
    ];
  },
};

/**
 * The fix passed its target tests but broke tests that passed before, and no call ran the
 * files of those tests (nor a whole suite) after the agent's first edit: a check the agent
 * could have run before submitting.
 */
export const regressionUnchecked: Detector = {
  id: "check.regression-unchecked",
  description: "target tests pass, existing tests it broke were never run",
  mechanism: "regression-unchecked",
  detect(attempt) {
    const { target, regressed } = groups(attempt);
    if (regressed.length === 0 || target.length === 0) return [];
    if (!target.every((t) => t.status === "passed")) return [];
    const files = [...new Set(regressed.map((t) => fileOf(t.name)))];
    const names = [...new Set(regressed.flatMap((t) => namesOf(t.name)))];
    // any runner (pytest, jest, go test, cargo test, …) of those files, or of a whole suite
    const ran = toolCalls(attempt).some((c) =>
      segments(commandOf(c) ?? "").some((s) => {
        if (!RUNS_TESTS.test(s) && !TEST_RE.test(s)) return false;
        if (names.some((f) => s.includes(f))) return true;
        // a runner script (`tests/runtests.py`) runs the labels it is given, or everything
        if (RUNNER_SCRIPT.test(s)) {
          const labels = labelsOf(s);
          return (
            labels.length === 0 || labels.some((l) => regressed.some((t) => covers(l, t.name)))
          );
        }
        // a runner given no test file runs a directory or the whole suite
        const runner = /^(?:\S*\/)?(?:pytest|py\.test|tox|nox)\b/.test(s) || TEST_RE.test(s);
        return runner && !TEST_FILE.test(s);
      }),
    );
    if (ran) return [];
    return [
      {
        eventIndices: [stopIndex(attempt)],
        reason: `broke ${regressed.length} existing test(s) in ${files.join(", ")}, never run before submitting`,
        signature: "existing tests not run",
      },
    ];
  },
};
