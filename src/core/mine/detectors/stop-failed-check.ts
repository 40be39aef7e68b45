import type { Attempt, Event } from "../../model/attempt.js";
import { neverRan } from "./never-ran.js";
import { allWrites, notesOnly, toolFailed } from "./paths.js";
import { callFailed, commandOf, isVerification, outputOf, toolCalls } from "./shell.js";
import type { Detector } from "./types.js";

/**
 * `sed -i '/DEBUG/d' f` or `sed -i '5,9d' f` alone: lines taken out (the agent's own debug
 * prints, as a rule), not a change of what the failing check saw.
 */
const DELETES_LINES =
  /^sed\s+-i\S*\s+(['"])(?:\/(?:[^/\\\n]|\\.)*\/|\d+(?:,\d+)?)d\1(?:\s+[^\s;&|<>]+)+$/;
const deletesLines = (call: Event): boolean => DELETES_LINES.test((commandOf(call) ?? "").trim());

/** pytest's closing summary line (`===== 4 passed, 146 errors in 32.8s =====`). */
const PYTEST_SUMMARY = /^=+ ([^=\n]*\bin [\d.]+s\b[^=\n]*) =+\s*$/gm;
/**
 * pytest itself raised the error: a warning of its own about the test suite (a nose-style
 * `setup`, a deprecated hook, an unknown mark, a class it cannot collect) turned into an error
 * by the environment's warning filters. Warnings the code under test can cause (an unraisable
 * exception, a thread's exception) are not among them.
 */
const FRAMEWORK_RAISED =
  /^E\s+(?:pytest\.|_pytest\.[\w.]+\.)?Pytest(?:RemovedIn\d+|Deprecation|Config|UnknownMark|Collection)Warning\b/m;
/** An exception pytest reports for a test (`E   TypeError: …`, `E   pytest.PytestRemovedIn8Warning: …`). */
const RAISED = /^E\s+(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Warning|Exit)\b/;
/** A run that shows the code under test failing to load: a collection error, a compile error. */
const CODE_FAILED =
  /\bERROR collecting\b|\b(?:SyntaxError|IndentationError|ImportError|ModuleNotFoundError|NameError)\b/;
/** Test modules a command names (`tests/test_x.py`, `a/tests/test_b.py::T::t`). */
const TEST_PATH = /[\w./-]*\btest_\w+\.py|[\w./-]+_test\.py/g;

/**
 * The failing check errored only where pytest could not set its tests up for a reason of its
 * own: the run's summary counts errors and no failed test (its output cut before the summary:
 * `ERROR` lines and no `FAILED` one), and every exception the run shows is pytest's own
 * warning about the suite; where it shows none (cut before them), no load error either, and an
 * earlier run of the same test module shows pytest raising such a warning as the error. The
 * check could not say anything of the agent's work (nor could a grader in the same image).
 */
function frameworkErrorsOnly(a: Attempt, last: Event): boolean {
  const out = outputOf(a, last);
  const summary = [...out.matchAll(PYTEST_SUMMARY)].at(-1)?.[1];
  if (summary !== undefined) {
    if (!/\b\d+ errors?\b/.test(summary) || /\bfailed\b/.test(summary)) return false;
  } else if (!/^ERROR \S+::/m.test(out) || /^FAILED \S|^=+ FAILURES =+$/m.test(out)) return false;
  // every error the run shows is pytest's own; one the code raised is the work's
  const raised = out.split("\n").filter((l) => RAISED.test(l));
  if (raised.length > 0) return raised.every((l) => FRAMEWORK_RAISED.test(l));
  // none shown (cut before them): an earlier run of the module says what they were, unless
  // this one shows the code failing to load
  if (CODE_FAILED.test(out)) return false;
  const modules = [...(commandOf(last) ?? "").matchAll(TEST_PATH)].map((m) => m[0]);
  if (modules.length === 0) return false;
  return toolCalls(a).some((c) => {
    if (c.index >= last.index || !isVerification(c)) return false;
    const o = outputOf(a, c);
    return FRAMEWORK_RAISED.test(o) && modules.some((m) => o.includes(m));
  });
}

/**
 * The agent stopped while its last verification (test, probe, build) was failing. A check that
 * never ran (its program not found, the shell could not parse it, the harness refused the reply
 * it came in) is no check, failing or not. A write after the failing check that succeeded
 * (other than lines taken out, or closing notes the task does not ask for) changed what it
 * checked: the run then stopped on a state no check saw (a stop without a check,
 * `stop.no-check-after-write`), not on a failing one. A check whose only errors pytest raised
 * about the test suite itself failed for the environment, not for the work.
 */
export const stopFailedCheck: Detector = {
  id: "stop.last-check-failed",
  description: "stop while the last check (test run, probe, build) failed",
  mechanism: "stop-after-failed-check",
  detect(attempt) {
    const last = toolCalls(attempt)
      .filter((c) => isVerification(c) && !neverRan(attempt, c))
      .at(-1);
    if (!last || !callFailed(attempt, last) || frameworkErrorsOnly(attempt, last)) return [];
    const wrote = (c: Event) =>
      !deletesLines(c) && !toolFailed(attempt, c) && !notesOnly(attempt, c);
    if (allWrites(attempt).some((w) => w.call.index > last.index && wrote(w.call))) return [];
    return [
      {
        eventIndices: [last.index],
        reason: `last check failed: ${(commandOf(last) ?? "").slice(0, 80)}`,
      },
    ];
  },
};
