import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runDetectors } from "../../../src/core/mine/detectors/index.js";
import { neverRan } from "../../../src/core/mine/detectors/never-ran.js";
import { isWrite, toolCalls } from "../../../src/core/mine/detectors/shell.js";
import { typedTogether } from "../../../src/core/mine/detectors/typed-together.js";
import { heuristicLabel } from "../../../src/core/mine/heuristic.js";
import { Attempt, type Event } from "../../../src/core/model/attempt.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { byTrialFolder, collect } from "./collect.js";

/** Real Terminus-2 trials (test/fixtures/harbor-terminus2-typed, README there). */
const FIXTURE = resolve(REPO_ROOT, "test/fixtures/harbor-terminus2-typed");
const WARNED = "022_aws-samples__hardeneks__step__KKAXDyE";
const LITERAL = "011_bourbonut__detroit__step164___e4RMrpw";
let one: (trial: string) => Attempt;
beforeAll(async () => {
  const got = await collect([WARNED, LITERAL].map((t) => resolve(FIXTURE, t)));
  expect(got.errors).toEqual([]);
  one = byTrialFolder(got.attempts);
});
const byCommand = (a: Attempt, re: RegExp) => toolCalls(a).filter((c) => re.test(c.command ?? ""));

describe("Terminus-2 keystrokes typed onto one line", () => {
  it("after the harness's warning, every command up to the one that submits the line never ran", () => {
    const a = one(WARNED);
    const rewrite = byCommand(a, /^echo "from\.\.\.resources/)[0];
    const tests = byCommand(a, /^pytest tests\/test_reliability_applications\.py/);
    if (!rewrite || tests.length < 2) throw new Error("the calls are not there");
    expect(isWrite(rewrite)).toBe(true);
    // the rewrite, the cd and both test commands: one line, none ran as written
    for (const c of [rewrite, ...tests]) expect(neverRan(a, c)).toBe(true);
    expect(typedTogether(a).size).toBe(4);
    // what the harness typed before (`cat applications.py` with its newline) ran
    const cat = byCommand(a, /^cat applications\.py$/)[0];
    expect(cat && neverRan(a, cat)).toBe(false);
    // so the last check could not run: kept in scope for review, not excluded
    const l = heuristicLabel(a, runDetectors(a));
    expect(l).toMatchObject({ status: "needs_review", exclusion: "none" });
    expect(l.detectorIds).toContain("stop.check-did-not-run");
  });

  it("a command ending in a literal backslash-n is typed, not run, until a newline follows", () => {
    const a = one(LITERAL);
    const rewrite = byCommand(a, /^echo 'from __future__ import annotations/)[0];
    const [first, ...later] = byCommand(a, /^pytest tests\/test_ease\/test_elastic\.py/);
    if (!rewrite || !first) throw new Error("the calls are not there");
    expect(neverRan(a, rewrite)).toBe(true);
    expect(neverRan(a, first)).toBe(true);
    // the later test runs ran, from the wrong folder: pytest found nothing to test
    expect(later.length).toBe(2);
    for (const c of later) expect(neverRan(a, c)).toBe(true);
    expect(typedTogether(a).has(later[0]?.index ?? -1)).toBe(false);
    const l = heuristicLabel(a, runDetectors(a));
    expect(l).toMatchObject({ status: "needs_review", exclusion: "none" });
  });
});

describe("which keystrokes start, submit or throw away a line typed together", () => {
  /** Batches of keystrokes, each followed by the harness's observation. */
  const run = (batches: { keys: string[]; seen: string }[]): Attempt => {
    const events: Event[] = [];
    for (const b of batches) {
      for (const k of b.keys)
        events.push({
          index: events.length,
          kind: "tool_call",
          tool: "bash_command",
          command: k.replace(/\n$/, ""),
          input: JSON.stringify({ keystrokes: k, duration: 1 }),
        });
      events.push({ index: events.length, kind: "tool_result", output: b.seen });
    }
    return Attempt.parse({
      id: "typed-1",
      source: { format: "fire-jsonl", path: "typed.jsonl" },
      taskId: "typed",
      taskText: "",
      outcome: "fail",
      events,
    });
  };
  const warn = (n: number) =>
    `- Command ${n} should end with newline when followed by another command. Otherwise the two commands will be concatenated together on the same line.`;

  it("text without a newline and no warning is an answer to a prompt, not a joined line", () => {
    const a = run([{ keys: ["y", "Enter", "ls -la\n"], seen: "$" }]);
    expect(typedTogether(a).size).toBe(0);
  });

  it("a line typed with a literal \\n and submitted by a lone Enter ran as written", () => {
    const a = run([
      { keys: ["make test\\n"], seen: "$ make test\\n" },
      { keys: ["Enter"], seen: "" },
    ]);
    // the shell got `make test\n` + Enter: the two characters are in the line, so it did not
    // run as written either
    expect([...typedTogether(a)]).toEqual([0, 2]);
  });

  it("a key the harness warns about (C-c) types nothing onto the line", () => {
    const a = run([{ keys: ["C-c", "pytest -q\n"], seen: warn(1) }]);
    expect(typedTogether(a).size).toBe(0);
  });

  it("an interrupt throws the joined line away; a line never submitted never ran", () => {
    const a = run([
      { keys: ["cat a.txt", "rm -rf build\n"], seen: warn(1) },
      { keys: ["echo done\\n"], seen: "" },
      { keys: ["C-c"], seen: "^C" },
      { keys: ["pytest -q\\n"], seen: "" },
    ]);
    expect([...typedTogether(a)].sort((x, y) => x - y)).toEqual([0, 1, 3, 7]);
  });
});
