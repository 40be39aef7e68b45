/**
 * The stop-after-failed-check template, replayed by the one evaluator on minimal traces: it
 * fires at the stop when the last test run failed (also when other work followed it), and
 * stays silent when a later run passed or when the exit status is unknown (a harness that
 * does not report it).
 */
import { describe, expect, it } from "vitest";
import { draftFromTemplate } from "../../../src/core/draft/template-drafter.js";
import { loadTemplates } from "../../../src/core/draft/templates.js";
import { type Cluster, clusterId } from "../../../src/core/mine/cluster.js";
import { Attempt, type Event } from "../../../src/core/model/attempt.js";
import { compilePolicy } from "../../../src/core/policy/compile.js";
import { replayAttempt } from "../../../src/core/policy/replay.js";
import { Candidate } from "../../../src/core/policy/schema.js";

const TASK = "Make the CSV parser accept empty fields; the tests in /app/tests must pass.";

type Step = { cmd: string; exit?: number };
function attempt(id: string, steps: Step[]): Attempt {
  const events: Event[] = [{ index: 0, kind: "prompt", role: "user", input: TASK }];
  for (const [i, s] of steps.entries()) {
    events.push({
      index: events.length,
      kind: "tool_call",
      tool: "Bash",
      command: s.cmd,
      callId: `c${i}`,
    });
    events.push({
      index: events.length,
      kind: "tool_result",
      callId: `c${i}`,
      output: "",
      ...(s.exit === undefined ? {} : { exitCode: s.exit }),
    });
  }
  events.push({ index: events.length, kind: "stop" });
  return Attempt.parse({
    id,
    source: { format: "fire-jsonl", path: `${id}.jsonl` },
    taskId: id,
    taskText: TASK,
    outcome: "fail",
    events,
  });
}

const edit = { cmd: "sed -i 's/a/b/' /app/parse.py", exit: 0 };
const failing = { cmd: "cd /app && python -m pytest tests -q", exit: 1 };
const passing = { cmd: "cd /app && python -m pytest tests -q", exit: 0 };

function policy(members: Attempt[]): Candidate {
  const ids = members.map((a) => a.id).sort();
  const cluster: Cluster = {
    id: clusterId(ids),
    name: "stop-after-failed-check",
    named: false,
    mechanism: "stopped while its own last check was failing",
    mechanismId: "stop-after-failed-check",
    interventionPoint: "stop",
    attemptIds: ids,
    taskIds: members.map((a) => a.taskId).sort(),
    detectors: [],
    evidence: [],
  };
  const r = draftFromTemplate(cluster, members, loadTemplates(), new Date("2026-12-02T00:00:00Z"));
  if (!r.ok) throw new Error(r.problems.join("; "));
  expect(r.template).toBe("tmpl-stop-after-failed-check@1");
  // routed everywhere: only the trigger decides
  return Candidate.parse({ ...r.candidate, eligibility: { allOf: [], anyOf: [], noneOf: [] } });
}

const fired = (c: Candidate, a: Attempt) =>
  replayAttempt([compilePolicy(c)], a).firings.map((f) => `${f.ruleId}@${f.eventIndex}`);

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
