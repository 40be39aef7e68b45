import { describe, expect, it } from "vitest";
import type { Event } from "../../../src/core/model/attempt.js";
import { initState, observeAll, step } from "../../../src/core/policy/evaluator.js";
import { Candidate } from "../../../src/core/policy/schema.js";
import type { CompiledPolicy, StepResult } from "../../../src/core/policy/types.js";
import { bash, events, policy, prompt, stop } from "./helpers.js";

function run(ps: CompiledPolicy[], evs: Event[]): StepResult[] {
  const out: StepResult[] = [];
  let s = initState();
  for (const e of evs) {
    const r = step(ps, s, e);
    out.push(r);
    s = r.state;
  }
  return out;
}

/** Instructs before a force push; the behaviour is fetching first. */
const push = (escalate?: object, over: object = {}) =>
  policy({
    id: "push",
    track: [{ id: "fetched", at: "tool", when: { command: "git fetch" }, set: "done" }],
    rules: [
      {
        id: "no-force",
        at: "tool",
        when: { command: "push --force", unset: "done" },
        action: "instruct",
        message: "Fetch first.",
        nudgeLimit: 5,
        ...(escalate ? { escalate } : {}),
      },
    ],
    behavior: { flag: "done" },
    ...over,
  });

const actions = (rs: StepResult[]) =>
  rs.map((r) => r.firings.map((f) => `${f.action}${f.escalated ? `/${f.escalated}` : ""}`).join());

describe("escalation ladder", () => {
  it("denies after N ignored instructions, at most cap times, then instructs again", () => {
    const p = push({ after: 2, action: "deny", cap: 2 });
    const evs = events(prompt("go"), ...Array.from({ length: 6 }, () => bash("git push --force")));
    const rs = run([p], evs);
    expect(actions(rs)).toEqual([
      "",
      "instruct",
      "instruct",
      "deny/deny",
      "deny/deny",
      "instruct",
      "instruct",
    ]);
    expect(rs.map((r) => r.ignored.length)).toEqual([0, 0, 1, 1, 1, 1, 1]);
    expect(rs[3]!.verdict).toEqual({ action: "deny", message: "Fetch first." });
  });

  it("resets when the behaviour shows: the instruction counts as followed", () => {
    const p = push({ after: 1, action: "deny" });
    const rs = run(
      [p],
      events(prompt("go"), bash("git push --force"), bash("git fetch"), bash("ls")),
    );
    expect(rs[2]!.followed).toEqual(["push@1/no-force"]);
    expect(rs[2]!.state.policies["push@1"]?.pending).toEqual({});
    expect(rs[3]!.followed).toEqual([]);
  });

  it("without escalate, ignored occasions are counted but nothing escalates", () => {
    const rs = run(
      [push()],
      events(prompt("go"), bash("git push --force"), bash("git push --force")),
    );
    expect(actions(rs)).toEqual(["", "instruct", "instruct"]);
    expect(rs[2]!.ignored).toEqual(["push@1/no-force"]);
  });

  it("blocks the stop after N ignored instructions of a tool rule, up to the cap", () => {
    const p = push({ after: 2, action: "block", cap: 1 });
    const rs = run([p], events(prompt("go"), bash("git push --force"), stop(), stop(), stop()));
    // 1st stop: one ignored; 2nd: two → block; 3rd: cap used
    expect(actions(rs)).toEqual(["", "instruct", "", "instruct/block", ""]);
    expect(rs[3]!.verdict).toEqual({ action: "instruct", message: "Fetch first." });
  });

  it("a denied escalation keeps the ladder's counts (the call did not run)", () => {
    const p = push(
      { after: 1, action: "deny", cap: 5 },
      {
        track: [
          { id: "fetched", at: "tool", when: { command: "git fetch" }, set: "done" },
          { id: "pushes", at: "tool", when: { command: "push" }, increment: "pushes" },
        ],
      },
    );
    const rs = run([p], events(prompt("go"), bash("git push --force"), bash("git push --force")));
    const ps = rs[2]!.state.policies["push@1"]!;
    expect(rs[2]!.verdict.action).toBe("deny");
    expect(ps.counters.pushes).toBe(1);
    expect(ps.escalated).toEqual({ "no-force": 1 });
    expect(ps.ignored).toEqual({ "no-force": 1 });
  });

  it("rejects escalating to deny outside tool calls, naming the field", () => {
    const r = Candidate.safeParse({
      ...push().candidate,
      rules: [
        {
          id: "r",
          at: "stop",
          action: "instruct",
          message: "m",
          escalate: { after: 1, action: "deny" },
        },
      ],
    });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues[0]?.path)).toBe('["rules",0,"escalate","action"]');
  });
});

describe("observe mode", () => {
  it("logs what it would have done and allows", () => {
    const p = push({ after: 1, action: "deny" }, { mode: "observe" });
    const rs = run([p], events(prompt("go"), bash("git push --force"), bash("git push --force")));
    expect(rs.map((r) => r.verdict.action)).toEqual(["allow", "allow", "allow"]);
    expect(rs[1]!.observed).toEqual({ action: "instruct", message: "Fetch first." });
    expect(rs[2]!.observed).toEqual({ action: "deny", message: "Fetch first." });
    expect(rs[2]!.firings[0]).toMatchObject({ mode: "observe", escalated: "deny" });
    expect(rs[0]!.observed).toBeUndefined();
  });

  it("an observed deny keeps the call's tracking (it runs)", () => {
    const deny = (mode?: "observe") =>
      policy({
        id: "rm",
        ...(mode ? { mode } : {}),
        track: [{ id: "t", at: "tool", when: { command: "rm" }, increment: "rms" }],
        rules: [{ id: "r", at: "tool", when: { command: "rm" }, action: "deny", message: "No." }],
      });
    const enforced = run([deny()], events(prompt("go"), bash("rm x")));
    const observed = run([deny("observe")], events(prompt("go"), bash("rm x")));
    expect(enforced[1]!.state.policies["rm@1"]?.counters.rms).toBeUndefined();
    expect(observed[1]!.state.policies["rm@1"]?.counters.rms).toBe(1);
  });

  it("enforced and observed policies side by side: only the enforced one answers", () => {
    const a = push();
    const b = observeAll([
      policy({
        id: "other",
        rules: [
          { id: "r", at: "tool", when: { command: "push" }, action: "deny", message: "No push." },
        ],
      }),
    ])[0]!;
    const rs = run([a, b], events(prompt("go"), bash("git push --force")));
    expect(rs[1]!.verdict).toEqual({ action: "instruct", message: "Fetch first." });
    expect(rs[1]!.observed).toEqual({ action: "deny", message: "No push." });
  });
});
