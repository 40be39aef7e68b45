import { describe, expect, it } from "vitest";
import type { Event } from "../../../src/core/model/attempt.js";
import { initState, step } from "../../../src/core/policy/evaluator.js";
import { unsafePatterns } from "../../../src/core/policy/safety.js";
import { Candidate } from "../../../src/core/policy/schema.js";
import type { CompiledPolicy, StepResult } from "../../../src/core/policy/types.js";
import { captureValues, mentionsIn, writeIs } from "../../../src/core/policy/values.js";
import { bash, events, policy, prompt, result, stop } from "./helpers.js";

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

/** Identity and prose of an inline candidate (the tests add values, rules, behaviour). */
const BARE = {
  id: "x",
  version: 1,
  family: "f",
  title: "t",
  chain: { state: "s", intervention: "i", behavior: "b", verifier: "v" },
};

/** A file name the task text names, in any script (no lookaround: patterns run in linear time). */
const FILE =
  "(?:^|[^\\w./~@\\u0080-\\uffff-])([\\w./~\\u0080-\\uffff-]*[\\w\\u0080-\\uffff-]\\.(?:txt|md|json|py))(?:$|[^\\w/])";
const write = (path: string): Omit<Event, "index"> => ({
  kind: "tool_call",
  tool: "write",
  input: JSON.stringify({ path, content: "x" }),
  writes: [path],
});
const read = (path: string): Omit<Event, "index"> => ({
  kind: "tool_call",
  tool: "read",
  input: JSON.stringify({ path }),
});

/** "A file the task names was never written": the artifact-never-written shape. */
const never = policy({
  id: "never",
  values: [{ id: "named", pattern: FILE }],
  track: [
    {
      id: "wrote",
      at: "tool",
      when: { any: [{ writes: "." }, { command: ">" }] },
      mark: [
        { values: "named", as: "written" },
        { values: "named", as: "by_name", match: "name" },
      ],
    },
  ],
  rules: [
    {
      id: "missing",
      at: "stop",
      when: { captured: "named", unmarked: { values: "named", as: "written" } },
      action: "instruct",
      message: "A file the task names was not written.",
    },
    {
      id: "elsewhere",
      at: "stop",
      when: { unmarked: { values: "named", as: "written", markedAs: "by_name" } },
      action: "instruct",
      message: "Written under another folder.",
    },
  ],
  behavior: { not: { unmarked: { values: "named", as: "written" } } },
});

describe("task values in the policy language", () => {
  it("captures the paths a task names, in any script, once, with the eligibility", () => {
    const rs = run([never], events(prompt("请把结果写入 `报告.md` 和 out/answer.txt。"), stop()));
    expect(rs[0]!.state.policies["never@1"]!.values).toEqual({
      named: ["报告.md", "out/answer.txt"],
    });
  });

  it("fires at stop when a named file was never written, not when it was", () => {
    const task = prompt("Write `answer.txt` with the window.");
    const miss = run([never], events(task, read("/workspace/answer.txt"), stop()));
    expect(miss.at(-1)!.firings.map((f) => f.ruleId)).toEqual(["missing"]);
    const ok = run([never], events(task, write("/workspace/answer.txt"), stop()));
    expect(ok.at(-1)!.firings).toEqual([]);
    expect(ok.at(-1)!.state.policies["never@1"]!.marks?.written).toEqual(["answer.txt"]);
    const shell = run([never], events(task, bash("echo 3 > answer.txt"), stop()));
    expect(shell.at(-1)!.firings).toEqual([]);
  });

  it("tells a file written under another folder from one never written (match: name)", () => {
    const task = prompt("Put the tests in tests/test_norm.py.");
    const r = run([never], events(task, write("/workspace/test_norm.py"), stop()));
    expect(r.at(-1)!.firings.map((f) => f.ruleId)).toEqual(["missing", "elsewhere"]);
  });

  it("a task that names no file: `captured` is false and nothing fires", () => {
    const r = run([never], events(prompt("Plan a trip."), stop()));
    expect(r.at(-1)!.firings).toEqual([]);
  });

  it("`mentions` sees the current tool call only, skipping values marked `unless`", () => {
    const guard = policy({
      id: "guard",
      values: [{ id: "named", pattern: FILE }],
      track: [
        { id: "read", at: "tool", when: { tool: "^read$" }, mark: { values: "named", as: "read" } },
      ],
      rules: [
        {
          id: "overwrite",
          at: "tool",
          when: { writes: ".", mentions: { values: "named", unless: "read" } },
          action: "deny",
          message: "Read the existing file first.",
        },
      ],
    });
    const task = prompt("The existing config.json holds the settings; update it.");
    const blind = run([guard], events(task, write("config.json")));
    expect(blind.at(-1)!.verdict.action).toBe("deny");
    const careful = run([guard], events(task, read("config.json"), write("config.json")));
    expect(careful.at(-1)!.verdict.action).toBe("allow");
  });

  it("rejects a reference to an undeclared values list, with its field path", () => {
    const r = Candidate.safeParse({
      ...BARE,
      rules: [
        { id: "r", at: "stop", when: { captured: "nope" }, action: "instruct", message: "m" },
      ],
      behavior: {},
    });
    expect(r.success).toBe(false);
    if (!r.success)
      expect(r.error.issues[0]).toMatchObject({
        path: ["rules", 0, "when", "captured"],
        message: expect.stringContaining("no values list nope"),
      });
  });

  it("value patterns are admitted like every other pattern (no lookaround)", () => {
    const c = Candidate.parse({
      ...BARE,
      values: [{ id: "v", pattern: "a(?=b)" }],
      rules: [{ id: "r", at: "stop", action: "instruct", message: "m" }],
      behavior: {},
    });
    expect(unsafePatterns(c).map((u) => u.path)).toEqual([["values", 0, "pattern"]]);
  });
});

describe("mention rule", () => {
  it("a relative value under a shallow folder is the task's; deep inside a tool it is not", () => {
    expect(mentionsIn("grep -r x /workspace/docs/", "docs/", "path")).toBe(true);
    expect(mentionsIn("grep -r x docs/", "docs/", "path")).toBe(true);
    expect(mentionsIn("grep -r x /root/.nvm/lib/node_modules/tool/docs/", "docs/", "path")).toBe(
      false,
    );
    expect(mentionsIn("cat answer.txt.bak", "answer.txt", "path")).toBe(false);
    expect(mentionsIn("cat my_answer.txt", "answer.txt", "path")).toBe(false);
    expect(mentionsIn("cat /a/b/c/answer.txt", "answer.txt", "name")).toBe(true);
  });

  it("write paths: exact, relative under a shallow folder, or inside a named folder", () => {
    expect(writeIs("/workspace/answer.txt", "answer.txt", "path")).toBe(true);
    expect(writeIs("/workspace/test_n.py", "tests/test_n.py", "path")).toBe(false);
    expect(writeIs("/workspace/test_n.py", "tests/test_n.py", "name")).toBe(true);
    expect(writeIs("/app/out/r.json", "out/", "path")).toBe(true);
  });

  it("captures at most 16 distinct values", () => {
    const text = Array.from({ length: 40 }, (_, i) => `f${i % 20}.txt`).join(" ");
    expect(captureValues(new RegExp(FILE, "u"), text)).toHaveLength(16);
  });
});

describe("streak", () => {
  const loop = policy({
    id: "loop",
    track: [
      {
        id: "fail",
        at: "tool_result",
        when: { any: [{ isError: true }, { exitCode: { ne: 0 } }] },
        streak: { counter: "same_error" },
      },
    ],
    rules: [
      {
        id: "change",
        at: "tool_result",
        when: { count: "same_error >= 3" },
        action: "instruct",
        message: "Change approach.",
      },
    ],
  });

  it("fires on the 3rd identical failing result (digits and spacing ignored)", () => {
    const err = (n: number) => result(`ENOENT: no such file (attempt ${n})`, 1);
    const rs = run([loop], events(prompt("t"), err(1), err(2), err(3), err(4)));
    expect(rs.map((r) => r.firings.length)).toEqual([0, 0, 0, 1, 0]);
    expect(rs[3]!.state.policies["loop@1"]!.counters.same_error).toBe(3);
  });

  it("a different error restarts the run", () => {
    const rs = run(
      [loop],
      events(prompt("t"), result("a", 1), result("a", 1), result("b", 1), result("a", 1)),
    );
    expect(rs.every((r) => r.firings.length === 0)).toBe(true);
    expect(rs.at(-1)!.state.policies["loop@1"]!.counters.same_error).toBe(1);
  });
});
