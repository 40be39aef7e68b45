import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { littleCoderItems } from "../../../src/core/ingest/little-coder-log.js";
import { deadlineNoDeliverable } from "../../../src/core/mine/detectors/deadline.js";
import { stepLimitReached } from "../../../src/core/mine/detectors/paths.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { byTrialFolder, collect } from "./collect.js";

/** Real Harbor trials of little-coder (test/fixtures/harbor-little-coder, see its README). */
let one: (trial: string) => Attempt;
beforeAll(async () => {
  const got = await collect([resolve(REPO_ROOT, "test/fixtures/harbor-little-coder")]);
  expect(got.errors).toEqual([]);
  one = byTrialFolder(got.attempts);
});
const calls = (a: Attempt) => a.events.filter((e) => e.kind === "tool_call");

describe("little-coder's Harbor log (real trials)", () => {
  it("reads each ShellSession call with its output and the adapter's exit code", () => {
    const a = one("git-leak-recovery__5LNVPPa");
    const c = calls(a);
    expect(c[0]).toMatchObject({ tool: "ShellSession", command: "ls -R /app/repo" });
    expect(c.length).toBe(40);
    const results = a.events.filter((e) => e.kind === "tool_result");
    expect(results[0]).toMatchObject({ output: "/app/repo:\nREADME.md", exitCode: 0 });
    // the trailer [exit=… cwd=… timed_out=…] is read, not left in the output
    for (const r of results) expect(r.output ?? "").not.toMatch(/\[exit=-?\d+ cwd=/);
    expect(results.some((r) => r.exitCode === 1 && r.isError)).toBe(true);
  });

  it("keeps the run's assistant text as its last message and the scaffold's notices as system", () => {
    const pass = one("git-leak-recovery__3KMrjof");
    expect(pass.outcome).toBe("pass");
    const said = pass.events.filter((e) => e.kind === "message" && e.role === "agent");
    expect(said.at(-1)?.input).toMatch(/Answer: secret\[lost_and_found_in_git\]/);
    const fail = one("git-leak-recovery__5LNVPPa");
    const notes = fail.events.filter((e) => e.kind === "message" && e.role === "system");
    expect(notes.at(-1)?.input).toMatch(/turn-cap: reached max_turns=40, aborting/);
  });

  it("a run the scaffold's turn cap ended ran out of its budget: the deadline's mechanism", () => {
    expect(stepLimitReached(one("build-pmars__YkxDbDj"))).toBe(true);
    const a = one("git-leak-recovery__5LNVPPa");
    expect(a.outcome).toBe("fail");
    expect(stepLimitReached(a)).toBe(true);
    const hits = deadlineNoDeliverable.detect(a);
    expect(hits[0]?.reason).toMatch(/^ran out of steps after 40 tool calls without writing/);
    // a run that stopped on its own did not
    expect(stepLimitReached(one("git-leak-recovery__3KMrjof"))).toBe(false);
  });

  it("reads a call whose output is empty, a timed-out call, and no call in prose", () => {
    const log = [
      "=== assistant text ===",
      "",
      "",
      ">> ShellSession({'command': 'make -j8 2>&1 | tail -3', 'timeout': 600})",
      "<< [exit=0 cwd=/app timed_out=false backend=harbor-env]",
      ">> ShellSession({'command': 'python3 train.py'})",
      "<< epoch 1",
      "[exit=124 cwd=/app timed_out=true backend=harbor-env]",
      "=== pi notifications (1) ===",
      "[info] finalize-warn: 5 turns left at 36/40",
    ].join("\n");
    const items = littleCoderItems(log);
    expect(items).toEqual([
      {
        type: "call",
        tool: "ShellSession",
        args: { command: "make -j8 2>&1 | tail -3", timeout: 600 },
        command: "make -j8 2>&1 | tail -3",
      },
      { type: "result", output: "", exitCode: 0 },
      {
        type: "call",
        tool: "ShellSession",
        args: { command: "python3 train.py" },
        command: "python3 train.py",
      },
      { type: "result", output: "epoch 1\n[timed out]", exitCode: 124, isError: true },
      { type: "message", role: "system", text: "[info] finalize-warn: 5 turns left at 36/40" },
    ]);
    expect(littleCoderItems("=== assistant text ===\nI would run >> ls next.\n")).toEqual([]);
  });
});
