import { describe, expect, it } from "vitest";
import type { Gold } from "../../src/bench/dev-sources.js";
import { heldOutSetting } from "../../src/bench/mine-real.js";
import {
  calibration,
  type FireSays,
  figures,
  objective,
  type SourceScore,
  scoreSource,
} from "../../src/bench/mine-score.js";

/** Six labelled trials: three procedural losses, one capability gap, a verifier fault, one unclear. */
const gold = new Map<string, Gold>([
  ["a", { cls: "procedural_loss", mechanism: "artifact-never-written" }],
  ["b", { cls: "procedural_loss", mechanism: "service-persistence" }],
  ["c", { cls: "procedural_loss", mechanism: "stop-without-check" }],
  ["d", { cls: "capability_gap" }],
  ["e", { cls: "verifier_fault" }],
  ["f", { cls: "unclear" }],
]);

const says = new Map<string, FireSays>([
  ["a", { named: "artifact-never-written", cluster: "k1", confidence: 0.8 }],
  ["b", { named: "artifact-never-written", cluster: "k1", confidence: 0.65 }],
  ["c", { review: true, confidence: 0.4 }],
  ["d", { named: "deadline-no-deliverable", cluster: "k2", confidence: 0.65 }],
  ["e", { excluded: "verifier_fault" }],
  ["f", { named: "repeated-tool-error", confidence: 0.9 }],
]);

describe("scoring fire against a source's gold labels", () => {
  it("counts precision, recall, mechanism and fault agreement on decided trials only", () => {
    const s = scoreSource(gold, says);
    expect(s.counted).toBe(5);
    expect([s.namedRight, s.named]).toEqual([2, 3]);
    expect([s.kept, s.goldInScope]).toEqual([3, 3]);
    expect([s.mechAgree, s.mechCompared]).toEqual([1, 2]);
    expect([s.faultAgree, s.counted]).toEqual([5, 5]);
    const f = figures(s);
    expect(f.precision).toBeCloseTo(2 / 3);
    expect(f.recall).toBe(1);
  });
});

describe("calibration of the shown confidence", () => {
  it("gives no cluster figure (not 0) to a source with no gold in-scope trial", () => {
    const gaps = new Map<string, Gold>([
      ["d", { cls: "capability_gap" }],
      ["e", { cls: "verifier_fault" }],
    ]);
    const f = figures(scoreSource(gaps, says));
    expect(f.bcubed).toBeNaN();
    expect(f.recall).toBeNaN();
    expect(f.fault).toBe(1);
  });

  it("groups labels by the confidence shown and counts how often each was right", () => {
    const bands = calibration([{ gold, says }]);
    // the unclear trial (0.90) and the excluded one are not counted
    expect(bands.map((b) => b.confidence)).toEqual([0.4, 0.65, 0.8]);
    const at = (c: number) => bands.find((b) => b.confidence === c);
    expect(at(0.4)).toMatchObject({ labels: 1, named: 0, reviewInScope: 1 });
    // 0.65: one named on an in-scope trial with the wrong mechanism, one on a capability gap
    expect(at(0.65)).toMatchObject({
      labels: 2,
      named: 2,
      namedInScope: 1,
      mechCompared: 1,
      mechAgree: 0,
    });
    expect(at(0.8)).toMatchObject({ named: 1, namedInScope: 1, mechCompared: 1, mechAgree: 1 });
  });

  it("pools several sources into the same bands", () => {
    const bands = calibration([
      { gold, says },
      { gold, says },
    ]);
    expect(bands.find((b) => b.confidence === 0.65)?.labels).toBe(4);
  });
});

/** A source of 10 failures, 6 in scope and all kept; `namedRight` names, `mechAgree` agreeing. */
const score = (named: number, namedRight: number, mechAgree = namedRight): SourceScore => ({
  counted: 10,
  faultAgree: 10,
  named,
  namedRight,
  goldInScope: 6,
  kept: 6,
  mechCompared: namedRight,
  mechAgree,
  bcubed: 1,
});

describe("the objective the held-out setting is chosen by", () => {
  it("prefers names right at least 4 times in 5 over naming nothing", () => {
    expect(objective(score(5, 5))).toBeGreaterThan(objective(score(0, 0)));
    expect(objective(score(6, 5))).toBeGreaterThan(objective(score(0, 0)));
    expect(objective(score(5, 5))).toBeGreaterThan(objective(score(6, 5)));
  });

  it("counts an in-scope name with the wrong mechanism against the setting", () => {
    // five names, all on in-scope trials; two or three with the gold mechanism
    const mixed = (agree: number): SourceScore => ({ ...score(5, 5), mechAgree: agree });
    expect(objective(score(2, 2))).toBeGreaterThan(objective(mixed(2)));
    expect(objective(mixed(3))).toBeGreaterThan(objective(score(0, 0)));
    expect(objective(score(0, 0))).toBeGreaterThan(objective(mixed(2)));
  });

  it("gives nothing for a name where the gold keeps the trial in scope only as a second reading", () => {
    // three names agree with the gold; four more land on trials whose gold class is out of
    // scope with an in-scope second reading (right for precision, no mechanism compared)
    const alt: SourceScore = { ...score(7, 7), mechCompared: 3, mechAgree: 3 };
    expect(objective(alt)).toBeCloseTo(objective(score(3, 3)));
    // one more with the wrong mechanism still costs
    expect(objective({ ...alt, mechCompared: 4 })).toBeLessThan(objective(score(3, 3)));
  });

  it("prefers naming nothing over names right less than 4 times in 5", () => {
    expect(objective(score(0, 0))).toBeGreaterThan(objective(score(4, 2)));
    expect(objective(score(2, 2))).toBeGreaterThan(objective(score(6, 3)));
  });
});

describe("the setting a held-out source is scored with", () => {
  const s = score;

  it("takes the setting the other sources did best with, never the held-out one's", () => {
    // settings: nameThreshold 1, 2, 3; source 0 is held out and would prefer setting 0
    const scores = [
      [s(6, 6), s(2, 2), s(0, 0)],
      [s(6, 2), s(3, 3), s(1, 1)],
    ];
    expect(heldOutSetting(scores, 0, 1)).toBe(1);
  });

  it("keeps the default on a tie, though a looser setting comes first", () => {
    const scores = [
      [s(9, 4), s(4, 4), s(4, 4)],
      [s(3, 3), s(3, 3), s(3, 3)],
    ];
    expect(heldOutSetting(scores, 0, 1)).toBe(1);
  });
});
