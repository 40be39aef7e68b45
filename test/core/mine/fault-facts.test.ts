import { describe, expect, it } from "vitest";
import { faultFacts, faultsOfAll } from "../../../src/core/mine/faults/index.js";
import { Attempt } from "../../../src/core/model/attempt.js";

/** pytest's report of a failed test whose statement quotes `name` (a grader's demand). */
const demanding = (name: string) =>
  [
    "=================================== FAILURES ===================================",
    "    def test_supervisor():",
    `>       assert "${name}" in rs, "worker must run in background"`,
    "E       AssertionError: worker must run in background",
    "========================= 1 failed, 2 passed in 3.10s ==========================",
  ].join("\n");

const failed = (id: string, demand: string): Attempt =>
  Attempt.parse({
    id,
    source: { format: "fire-jsonl", path: "traces/demand.jsonl" },
    taskId: "supervisor",
    taskText: "Write run.sh that starts a worker in the background under flock.",
    outcome: "fail",
    reward: 0,
    verifierOutput: demanding(demand),
    events: [
      { index: 0, kind: "tool_call", tool: "bash", command: "echo ok > run.sh", callId: "c" },
      { index: 1, kind: "tool_result", callId: "c", output: "", exitCode: 0 },
    ],
  });

/** Copies whose events and verifier output count each read (as a light attempt's would). */
function counted(attempts: readonly Attempt[]) {
  let reads = 0;
  const copies = attempts.map((a) => {
    const c = { ...a } as Record<string, unknown>;
    for (const part of ["events", "verifierOutput"] as const)
      Object.defineProperty(c, part, {
        enumerable: true,
        get: () => {
          reads++;
          return a[part];
        },
      });
    return c as unknown as Attempt;
  });
  return { copies, reads: () => reads };
}

describe("fault facts: what the index's faults need of an attempt, read once", () => {
  it("gives the faults a read of the events gives, reading none unless a demand is shared", () => {
    for (const [names, shared] of [
      [["worker.bin", "worker.bin"], true],
      [["worker.bin", "supervisor.bin"], false],
    ] as const) {
      const attempts = names.map((n, i) => failed(`demand-${i}`, n));
      const whole = faultsOfAll(attempts);
      const facts = new Map(attempts.map((a) => [a.id, faultFacts(a)]));
      const { copies, reads } = counted(attempts);
      const fromFacts = faultsOfAll(copies, [], (a) => facts.get(a.id));
      expect([...fromFacts]).toEqual([...whole]);
      expect(fromFacts.size).toBe(shared ? 2 : 0);
      // a name every failure demands is looked for in the events; none: nothing is read
      if (shared) expect(reads()).toBeGreaterThan(0);
      else expect(reads()).toBe(0);
    }
  });
});
