/**
 * The stop-after-failed-check template, replayed by the one evaluator on minimal traces: it
 * fires at the stop when the last test run failed (also when other work followed it), and
 * stays silent when a later run passed or when the exit status is unknown (a harness that
 * does not report it).
 */
import { describe, expect, it } from "vitest";
import type { Attempt } from "../../../src/core/model/attempt.js";
import type { Candidate } from "../../../src/core/policy/schema.js";
import { fired, type TraceStep, templatePolicy, traceOf } from "./template-policy.js";

const TASK = "Make the CSV parser accept empty fields; the tests in /app/tests must pass.";

const attempt = (id: string, steps: TraceStep[]): Attempt => traceOf(TASK, id, steps);

const edit = { cmd: "sed -i 's/a/b/' /app/parse.py", exit: 0 };
const failing = { cmd: "cd /app && python -m pytest tests -q", exit: 1 };
const passing = { cmd: "cd /app && python -m pytest tests -q", exit: 0 };

const policy = (members: Attempt[]): Candidate =>
  templatePolicy("stop-after-failed-check", members);

describe("stop after a failed check: the template", () => {
  const lost = attempt("lost", [edit, failing]);
  const c = policy([lost]);

  it("fires at the stop when the last test run failed, also with edits after it", () => {
    expect(fired(c, lost)).toEqual(["fix-failing-tests@5"]);
    expect(fired(c, attempt("edited", [edit, failing, edit]))).toEqual(["fix-failing-tests@7"]);
  });

  it("is silent after a passing run or with no exit status", () => {
    expect(fired(c, attempt("fixed", [edit, failing, edit, passing]))).toEqual([]);
    expect(
      fired(
        c,
        attempt("moved-on", [edit, failing, { cmd: "cat /app/parse.py", exit: 0 }, passing]),
      ),
    ).toEqual([]);
    expect(fired(c, attempt("unknown", [edit, { cmd: failing.cmd }]))).toEqual([]);
  });
});
