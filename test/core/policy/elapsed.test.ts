import { describe, expect, it } from "vitest";
import { paramsOf } from "../../../src/core/draft/mechanism-template.js";
import { loadTemplates } from "../../../src/core/draft/templates.js";
import { LIMIT_SHARE } from "../../../src/core/draft/templates-artifact.js";
import { Attempt } from "../../../src/core/model/attempt.js";
import { compilePolicy } from "../../../src/core/policy/compile.js";
import { replayAttempt } from "../../../src/core/policy/replay.js";
import { unsafePatterns } from "../../../src/core/policy/safety.js";
import { Candidate } from "../../../src/core/policy/schema.js";
import { durationSeconds } from "../../../src/core/policy/values.js";

/** The deadline template, eligible everywhere, nudging by count after `afterCalls` calls. */
function deadlinePolicy(afterCalls: number) {
  const t = loadTemplates().byMechanism.get("deadline-no-deliverable");
  if (!t) throw new Error("no deadline template");
  const c = Candidate.parse({
    id: "deadline-time",
    version: 1,
    ...t.build({ ...paramsOf({}, []), afterCalls }),
    eligibility: { allOf: [], anyOf: [], noneOf: [] },
  });
  // the portfolio loader (replay screens and the hook) refuses unsafe patterns
  expect(unsafePatterns(c)).toEqual([]);
  return compilePolicy(c);
}

const T0 = Date.parse("2026-05-01T10:00:00Z");
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

/** A run of `calls` read-only tool calls, one every `every` seconds (no timestamps: every 0). */
function run(task: string, calls: number, every: number): Attempt {
  const events: unknown[] = [
    { index: 0, kind: "prompt", role: "user", input: task, ...(every ? { ts: at(0) } : {}) },
  ];
  for (let i = 0; i < calls; i++) {
    const s = (i + 1) * every;
    events.push(
      {
        index: events.length,
        kind: "tool_call",
        tool: "Bash",
        command: `cat part${i}.log`,
        callId: `c${i}`,
        ...(every ? { ts: at(s) } : {}),
      },
      {
        index: events.length + 1,
        kind: "tool_result",
        output: "…",
        exitCode: 0,
        callId: `c${i}`,
        ...(every ? { ts: at(s + 1) } : {}),
      },
    );
  }
  return Attempt.parse({
    id: "run",
    source: { format: "fire-jsonl", path: "/run.jsonl" },
    taskId: "t",
    taskText: task,
    outcome: "timeout",
    events,
  });
}

const firstFiring = (a: Attempt, afterCalls: number): number | undefined =>
  replayAttempt([deadlinePolicy(afterCalls)], a).firings[0]?.eventIndex;

describe("elapsed share of a stated time limit (the evaluator, in replay)", () => {
  it("reads durations in several units and scripts", () => {
    expect(durationSeconds("30 minutes")).toBe(1800);
    expect(durationSeconds("2h")).toBe(7200);
    expect(durationSeconds("90 s")).toBe(90);
    expect(durationSeconds("10分钟")).toBe(600);
    expect(durationSeconds("report.md")).toBeUndefined();
  });

  it("fires at the first tool call once elapsed time reaches the share of the limit", () => {
    // 10 minutes stated, a call every 60 s: half the limit is reached at the 5th call
    const a = run("Write `report.md`. You have 10 minutes.", 8, 60);
    const i = firstFiring(a, 100);
    const ev = a.events.find((e) => e.index === i);
    expect(ev?.kind).toBe("tool_call");
    expect((Date.parse(ev?.ts ?? "") - T0) / 1000).toBe(LIMIT_SHARE * 600);
    // with a longer limit it never fires in this run, even past the call-count fallback
    expect(firstFiring(run("Write `report.md`. You have 2 hours.", 8, 60), 3)).toBeUndefined();
  });

  it("falls back to the call count without a stated limit or without timestamps", () => {
    const noLimit = run("Write `report.md`.", 8, 60);
    expect(noLimit.events.find((e) => e.index === firstFiring(noLimit, 3))?.command).toBe(
      "cat part2.log",
    );
    const noTs = run("Write `report.md`. You have 10 minutes.", 8, 0);
    expect(noTs.events.find((e) => e.index === firstFiring(noTs, 3))?.command).toBe(
      "cat part2.log",
    );
  });

  it("near miss: the deliverable written before the share is reached silences it", () => {
    const a = run("Write `report.md`. You have 10 minutes.", 8, 60);
    const wrote = a.events.find((e) => e.command === "cat part1.log");
    if (wrote) wrote.command = "echo draft > report.md";
    expect(firstFiring(a, 100)).toBeUndefined();
  });
});
