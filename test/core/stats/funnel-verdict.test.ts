import { describe, expect, it } from "vitest";
import { analyzeScreen, funnel, type Observation } from "../../../src/core/stats/index.js";
import { expand, SOL } from "./table9.js";

describe("funnel", () => {
  it("narrows stage by stage and keeps marginal counts", () => {
    const o = (pass: boolean, risky: boolean, fired: boolean, behavior: boolean): Observation => ({
      task: "t",
      arm: "policy",
      attempt: 1,
      pass,
      risky,
      fired,
      behavior,
    });
    const f = funnel("policy", [
      o(true, true, true, true),
      o(false, true, true, false),
      o(true, true, false, true),
      o(true, false, false, false),
      { ...o(true, true, true, true), unscorable: "no hook events" },
    ]);
    expect(f.attempts).toBe(4);
    expect(f.stages).toEqual({ risky: 3, fired: 2, behavior: 1, pass: 1 });
    expect(f.marginal).toEqual({ risky: 3, fired: 2, behavior: 2, pass: 3 });
  });

  it("marks unrecorded stages null without narrowing later ones", () => {
    const f = funnel("baseline", [
      { task: "t", arm: "baseline", attempt: 1, pass: true },
      { task: "t", arm: "baseline", attempt: 2, pass: false },
    ]);
    expect(f.stages).toEqual({ risky: null, fired: null, behavior: null, pass: 1 });
  });
});

describe("verdict suggestions", () => {
  it("Table 9 Sol with the policy firing: promising, not harmful", () => {
    const obs = expand(SOL).map((o) => ({ ...o, fired: o.arm === "policy" }));
    const v = analyzeScreen(obs).verdicts;
    expect(v.map((x) => x.verdict)).toEqual(["promising"]);
    expect(v[0]?.reason).toContain("7 tasks");
  });

  it("a pass→fail on a silent task and a firing there: harmful and over-broad", () => {
    const obs: Observation[] = [
      ...expand(SOL).map((o) => ({ ...o, cohort: "eligible", fired: o.arm === "policy" })),
      { task: "s1", arm: "baseline", attempt: 1, pass: true, cohort: "silent", fired: false },
      { task: "s1", arm: "policy", attempt: 1, pass: false, cohort: "silent", fired: true },
    ];
    const a = analyzeScreen(obs);
    expect(a.cohorts).toEqual(["eligible", "silent", "all"]);
    const kinds = a.verdicts.map((x) => x.verdict);
    expect(kinds).toContain("harmful");
    expect(kinds).toContain("over-broad");
    expect(kinds).not.toContain("promising");
    expect(a.verdicts.find((x) => x.verdict === "harmful")?.reason).toContain("s1");
  });

  it("a policy that never fires is inert", () => {
    const obs = expand(SOL).map((o) => ({ ...o, fired: false }));
    expect(analyzeScreen(obs).verdicts.map((x) => x.verdict)).toContain("inert");
  });
});

describe("verdict thresholds (fire.config.json `verdicts`)", () => {
  const silentLoss: Observation[] = [
    ...expand(SOL).map((o) => ({ ...o, cohort: "eligible", fired: o.arm === "policy" })),
    { task: "s1", arm: "baseline", attempt: 1, pass: true, cohort: "silent", fired: false },
    { task: "s1", arm: "policy", attempt: 1, pass: false, cohort: "silent", fired: false },
  ];
  it("tolerates pass→fail tasks up to harmfulMaxPassToFail", () => {
    const strict = analyzeScreen(silentLoss).verdicts.map((v) => v.verdict);
    expect(strict).toContain("harmful");
    const lenient = analyzeScreen(silentLoss, {
      thresholds: {
        inertMinFiringRate: 0.5,
        overBroadMaxNegativeRate: 0.25,
        harmfulMaxPassToFail: 1,
      },
    }).verdicts.map((v) => v.verdict);
    expect(lenient).not.toContain("harmful");
  });
  it("calls a policy firing on under inertMinFiringRate of positive attempts inert", () => {
    // fires on 1 of 21 eligible policy attempts
    const obs = expand(SOL).map((o) => ({
      ...o,
      cohort: "eligible",
      fired: o.arm === "policy" && o.task === "t1" && o.attempt === 1,
    }));
    const v = analyzeScreen(obs).verdicts.find((x) => x.verdict === "inert");
    expect(v?.reason).toBe("fired on 5% of 21 positive attempts (min 50%)");
  });
});

describe("cohorts", () => {
  it("rows without a cohort count only in the pooled analysis", () => {
    const obs: Observation[] = [
      ...expand(SOL).map((o) => (o.task === "t1" ? o : { ...o, cohort: "eligible" })),
    ];
    const a = analyzeScreen(obs);
    expect(a.cohorts).toEqual(["eligible", "all"]);
    expect(a.contrasts.map((c) => [c.cohort, c.nTasks])).toEqual([
      ["eligible", 6],
      ["all", 7],
    ]);
  });
});
