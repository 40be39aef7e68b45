import { describe, expect, it } from "vitest";
import type { Event } from "../../../src/core/model/attempt.js";
import { initState, step, withTaskText } from "../../../src/core/policy/evaluator.js";
import type { CompiledPolicy, SessionState, StepResult } from "../../../src/core/policy/types.js";
import { bash, events, policy, prompt, result, stop } from "./helpers.js";

function run(ps: CompiledPolicy[], evs: Event[], state: SessionState = initState()): StepResult[] {
  const out: StepResult[] = [];
  let s = state;
  for (const e of evs) {
    const r = step(ps, s, e);
    out.push(r);
    s = r.state;
  }
  return out;
}

const server = policy({
  id: "srv",
  eligibility: { anyOf: [{ pattern: "keep (it|the server) running", flags: "i" }] },
  track: [
    {
      id: "launch",
      at: "tool",
      when: { command: "\\bserve\\b" },
      record: "launch",
      set: "launched",
    },
    {
      id: "probe",
      at: "tool",
      when: { command: "\\bcurl\\b", steps: "now > launch" },
      set: "probed",
    },
  ],
  rules: [
    {
      id: "at-stop",
      at: "stop",
      when: { flag: "launched", unset: "probed" },
      action: "instruct",
      message: "Probe it.",
    },
  ],
  behavior: { flag: ["launched", "probed"] },
});

describe("step", () => {
  it("decides eligibility once from the first user prompt and fires at stop", () => {
    const rs = run(
      [server],
      events(prompt("Keep the server running on 8080"), bash("serve &"), stop(), stop()),
    );
    expect(rs[0]!.state.taskText).toBe("Keep the server running on 8080");
    expect(rs[0]!.state.policies["srv@1"]).toMatchObject({
      eligible: true,
      matched: "Keep the server running",
    });
    expect(rs[1]!.tracked).toEqual(["srv@1/launch"]);
    expect(rs[2]!.firings).toEqual([
      {
        policyId: "srv",
        policyVersion: 1,
        ruleId: "at-stop",
        point: "stop",
        eventIndex: 2,
        action: "instruct",
        message: "Probe it.",
      },
    ]);
    expect(rs[2]!.verdict).toEqual({ action: "instruct", message: "Probe it." });
    // nudge limit 1: the second stop is allowed
    expect(rs[3]!.verdict).toEqual({ action: "allow" });
    expect(rs[3]!.state.policies["srv@1"]!.nudges).toEqual({ "at-stop": 1 });
  });

  it("stays silent for an ineligible task but still tracks (behaviour is coded in every arm)", () => {
    const rs = run([server], events(prompt("Write a poem"), bash("serve &"), stop()));
    expect(rs[0]!.state.policies["srv@1"]!.eligible).toBe(false);
    expect(rs[2]!.firings).toEqual([]);
    expect(rs[2]!.state.policies["srv@1"]!.flags).toEqual({ launched: true });
  });

  it("treats a probe in the same call as the launch as not later", () => {
    const rs = run(
      [server],
      events(prompt("keep it running"), bash("serve & curl localhost"), stop()),
    );
    expect(rs[1]!.state.policies["srv@1"]!.flags).toEqual({ launched: true });
    expect(rs[2]!.firings).toHaveLength(1);
    const ok = run(
      [server],
      events(prompt("keep it running"), bash("serve &"), bash("curl localhost"), stop()),
    );
    expect(ok[3]!.firings).toHaveLength(0);
  });

  it("never fires before the task text is known, and withTaskText supplies it", () => {
    const evs = events(bash("serve &"), stop());
    expect(run([server], evs)[1]!.firings).toHaveLength(0);
    const rs = run([server], evs, withTaskText(initState(), "please keep it running"));
    expect(rs[1]!.firings.map((f) => f.ruleId)).toEqual(["at-stop"]);
    expect(withTaskText(rs[1]!.state, "other").taskText).toBe("please keep it running");
  });

  const db = policy({
    id: "db",
    track: [{ id: "backup", at: "tool", when: { command: "\\bcp\\b.*-wal" }, set: "backup" }],
    rules: [
      {
        id: "no-open",
        at: "tool",
        when: { command: "\\bsqlite3\\b" },
        action: "deny",
        message: "Copy first.",
        release: { flag: "backup" },
      },
      {
        id: "hint",
        at: "tool",
        when: { command: "sqlite3" },
        action: "instruct",
        message: "Hint.",
        nudgeLimit: 2,
      },
    ],
    behavior: { flag: "backup" },
  });

  it("repeats a deny until its release holds; a deny wins over co-firing instructs", () => {
    const rs = run(
      [db],
      events(
        prompt("recover the db"),
        bash("sqlite3 a.db"),
        bash("sqlite3 a.db .tables"),
        bash("cp a.db a.db-wal /bk"),
        bash("sqlite3 a.db"),
      ),
    );
    expect(rs[1]!.verdict).toEqual({ action: "deny", message: "Copy first." });
    expect(rs[1]!.firings.map((f) => `${f.ruleId}:${f.action}`)).toEqual([
      "no-open:deny",
      "hint:instruct",
    ]);
    expect(rs[2]!.verdict.action).toBe("deny");
    expect(rs[4]!.firings).toEqual([]);
    expect(rs[4]!.verdict).toEqual({ action: "allow" });
    expect(rs[4]!.state.policies["db@1"]!.nudges).toEqual({ "no-open": 2, hint: 2 });
  });

  it("undoes the tracking of a denied call (it never ran)", () => {
    const p = policy({
      id: "rm",
      track: [{ id: "ran", at: "tool", when: { command: "rm" }, increment: "rms" }],
      rules: [
        {
          id: "deny-rm",
          at: "tool",
          when: { command: "rm -rf" },
          action: "deny",
          message: "No.",
          nudgeLimit: 5,
        },
      ],
    });
    const rs = run([p], events(prompt("t"), bash("rm x"), bash("rm -rf /")));
    expect(rs[1]!.state.policies["rm@1"]!.counters).toEqual({ rms: 1 });
    expect(rs[2]!.verdict.action).toBe("deny");
    expect(rs[2]!.tracked).toEqual([]);
    expect(rs[2]!.state.policies["rm@1"]).toMatchObject({
      counters: { rms: 1 },
      nudges: { "deny-rm": 1 },
    });
  });

  it("joins co-firing instruct messages across policies", () => {
    const a = policy({
      id: "a",
      rules: [{ id: "r", at: "stop", action: "instruct", message: "A." }],
    });
    const b = policy({
      id: "b",
      rules: [{ id: "r", at: "stop", action: "instruct", message: "B." }],
    });
    const rs = run([a, b], events(prompt("t"), stop()));
    expect(rs[1]!.verdict).toEqual({ action: "instruct", message: "A.\n\nB." });
    expect(rs[1]!.firings).toHaveLength(2);
  });

  it("is pure: the input state is not mutated, and JSON round-trips give the same result", () => {
    const evs = events(prompt("keep it running"), bash("serve &"), bash("curl x"), stop());
    let s = initState();
    for (const e of evs) {
      const snap = JSON.stringify(s);
      const r1 = step([server], s, e);
      expect(JSON.stringify(s)).toBe(snap);
      const r2 = step([server], JSON.parse(snap) as SessionState, e);
      expect(r2).toEqual(r1);
      s = r1.state;
    }
    expect(s.step).toBe(4);
  });

  it("evaluates exit codes, counters, not/any and the capped tail of long output", () => {
    const p = policy({
      id: "misc",
      track: [{ id: "fail", at: "tool_result", when: { exitCode: { ne: 0 } }, increment: "fails" }],
      rules: [
        {
          id: "r",
          at: "tool_result",
          when: {
            count: "fails >= 2",
            any: [{ output: "FINAL-MARK$" }, { not: { tool: "Bash" } }],
          },
          action: "instruct",
          message: "two failures",
        },
      ],
    });
    const long = `${"x".repeat(100_000)}FINAL-MARK`;
    const rs = run([p], events(prompt("t"), result("no", 1), result(long, 0), result(long, 2)));
    expect(rs[2]!.firings).toEqual([]);
    expect(rs[3]!.firings.map((f) => f.eventIndex)).toEqual([3]);
  });
});
