import { describe, expect, it } from "vitest";
import {
  type Observation,
  summarizeArm,
  taskPassAtK,
  taskPassHatK,
} from "../../../src/core/stats/index.js";

const obs = (task: string, passes: boolean[], extra: Partial<Observation> = {}): Observation[] =>
  passes.map((pass, i) => ({ task, arm: "baseline", attempt: i + 1, pass, ...extra }));

describe("pass@k and pass^k", () => {
  it("per task: unbiased estimators by hand", () => {
    // n = 4, c = 1, k = 2: 1 - C(3,2)/C(4,2) = 1 - 3/6 = 0.5
    expect(taskPassAtK(4, 1, 2)).toBeCloseTo(0.5, 12);
    // pass^2 with c = 3 of 4: C(3,2)/C(4,2) = 3/6
    expect(taskPassHatK(4, 3, 2)).toBeCloseTo(0.5, 12);
    // n = k: pass@k is 1 when any success, pass^k only when all
    expect(taskPassAtK(2, 1, 2)).toBe(1);
    expect(taskPassHatK(2, 1, 2)).toBe(0);
    expect(taskPassHatK(2, 2, 2)).toBe(1);
  });

  it("per arm over three tasks with two attempts each", () => {
    const s = summarizeArm("baseline", "all", [
      ...obs("a", [true, true], { cost: 0.5, durationS: 10 }),
      ...obs("b", [true, false], { cost: 0.25, durationS: 20 }),
      ...obs("c", [false, false]),
    ]);
    expect(s.tasks).toBe(3);
    expect(s.attempts).toBe(6);
    expect(s.k).toBe(2);
    expect(s.passAt1).toBeCloseTo(0.5, 12); // (1 + 0.5 + 0) / 3
    expect(s.passAtK).toBeCloseTo(2 / 3, 12); // a and b
    expect(s.passHatK).toBeCloseTo(1 / 3, 12); // a only
    expect(s.costUsd).toBeCloseTo(1.5, 12);
    expect(s.meanDurationS).toBeCloseTo(15, 12);
  });

  it("weights tasks, not attempts, and leaves unscorable attempts out", () => {
    const s = summarizeArm("baseline", "all", [
      ...obs("a", [true, true, true, true]),
      ...obs("b", [false]),
      { task: "b", arm: "baseline", attempt: 9, pass: true, unscorable: "no hook events" },
    ]);
    expect(s.passAt1).toBeCloseTo(0.5, 12);
    expect(s.k).toBe(1);
    expect(s.unscorable).toBe(1);
    expect(s.attempts).toBe(5);
  });
});
