import { describe, expect, it } from "vitest";
import { faultFacts, faultsOfAll } from "../../../src/core/mine/faults/index.js";
import { Attempt } from "../../../src/core/model/attempt.js";
import { demandLines } from "../../helpers/demanding.js";

const failedOn = (names: readonly string[]): Attempt[] =>
  demandLines(names).map((line) => Attempt.parse(JSON.parse(line)));

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
      const attempts = failedOn(names);
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
