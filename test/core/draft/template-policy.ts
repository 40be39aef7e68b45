import { expect } from "vitest";
import { draftFromTemplate } from "../../../src/core/draft/template-drafter.js";
import { loadTemplates } from "../../../src/core/draft/templates.js";
import { type Cluster, clusterId } from "../../../src/core/mine/cluster.js";
import { mechanismById } from "../../../src/core/mine/mechanisms.js";
import { Attempt, type Event } from "../../../src/core/model/attempt.js";
import { compilePolicy } from "../../../src/core/policy/compile.js";
import { replayAttempt } from "../../../src/core/policy/replay.js";
import { Candidate } from "../../../src/core/policy/schema.js";

/**
 * The candidate a mechanism's template drafts from a cluster of `members`, routed everywhere
 * (only its trigger decides), after checking the template it came from.
 */
export function templatePolicy(mechanismId: string, members: Attempt[]): Candidate {
  const m = mechanismById(mechanismId);
  if (!m) throw new Error(`no mechanism ${mechanismId}`);
  const ids = members.map((a) => a.id).sort();
  const cluster: Cluster = {
    id: clusterId(ids),
    name: mechanismId,
    named: false,
    mechanism: m.name,
    mechanismId,
    interventionPoint: m.point,
    attemptIds: ids,
    taskIds: members.map((a) => a.taskId).sort(),
    detectors: [],
    evidence: [],
  };
  const r = draftFromTemplate(cluster, members, loadTemplates(), new Date("2026-12-02T00:00:00Z"));
  if (!r.ok) throw new Error(r.problems.join("; "));
  expect(r.template).toBe(`tmpl-${mechanismId}@1`);
  return Candidate.parse({ ...r.candidate, eligibility: { allOf: [], anyOf: [], noneOf: [] } });
}

/** The rules a candidate fires on an attempt, replayed by the one evaluator: `rule@event`. */
export const fired = (c: Candidate, a: Attempt): string[] =>
  replayAttempt([compilePolicy(c)], a).firings.map((f) => `${f.ruleId}@${f.eventIndex}`);

/** A step of a minimal trace: a shell command with its exit status (unknown when absent), or an Edit of a file. */
export type TraceStep = { cmd: string; exit?: number } | { edit: string };

/**
 * A minimal failed trace of `steps` on `task`: each step a tool call and its result (an edit
 * succeeds), then the stop.
 */
export function traceOf(task: string, id: string, steps: readonly TraceStep[]): Attempt {
  const events: Event[] = [{ index: 0, kind: "prompt", role: "user", input: task }];
  for (const [i, s] of steps.entries()) {
    events.push(
      "edit" in s
        ? {
            index: events.length,
            kind: "tool_call",
            tool: "Edit",
            input: JSON.stringify({ file_path: s.edit, old_string: "a", new_string: "b" }),
            writes: [s.edit],
            callId: `c${i}`,
          }
        : {
            index: events.length,
            kind: "tool_call",
            tool: "Bash",
            command: s.cmd,
            callId: `c${i}`,
          },
    );
    events.push({
      index: events.length,
      kind: "tool_result",
      callId: `c${i}`,
      output: "",
      ...("edit" in s ? { exitCode: 0 } : s.exit === undefined ? {} : { exitCode: s.exit }),
    });
  }
  events.push({ index: events.length, kind: "stop" });
  return Attempt.parse({
    id,
    source: { format: "fire-jsonl", path: `${id}.jsonl` },
    taskId: id,
    taskText: task,
    outcome: "fail",
    events,
  });
}
