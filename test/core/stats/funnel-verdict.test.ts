import { describe, expect, it } from "vitest";
import { analyzeScreen, funnel, type Observation } from "../../../src/core/stats/index.js";
import { DEFAULT_THRESHOLDS } from "../../../src/core/verdict/thresholds.js";
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
    const v = analyzeScreen(obs).findings;
    expect(v.map((x) => [x.code, x.verdict])).toEqual([["baseline-effect", "promising"]]);
    expect(v[0]).toMatchObject({ effect: { cohort: "all", nTasks: 7, p: 0.0625 }, maxP: 0.1 });
  });

  it("promisingMaxP and effectMinTasks come from the configured thresholds", () => {
    const obs = expand(SOL).map((o) => ({ ...o, fired: o.arm === "policy" }));
    const strict = { ...DEFAULT_THRESHOLDS, promisingMaxP: 0.05 };
    const v = analyzeScreen(obs, { thresholds: strict }).findings;
    expect(v.map((x) => [x.code, x.verdict])).toEqual([["baseline-effect", "inconclusive"]]);
    // Sol reversed: a negative effect over 7 tasks is harmful unless 8 tasks are required
    const worse = obs.map((o) => ({ ...o, arm: o.arm === "policy" ? "baseline" : "policy" }));
    const harm = (t: typeof DEFAULT_THRESHOLDS) =>
      analyzeScreen(worse as Observation[], { thresholds: t }).findings.map((f) => f.code);
    expect(harm(DEFAULT_THRESHOLDS)).toContain("negative-effect");
    expect(harm({ ...DEFAULT_THRESHOLDS, effectMinTasks: 8 })).not.toContain("negative-effect");
  });

  it("a pass→fail on a silent task and a firing there: harmful and over-broad", () => {
    const obs: Observation[] = [
      ...expand(SOL).map((o) => ({ ...o, cohort: "eligible", fired: o.arm === "policy" })),
      { task: "s1", arm: "baseline", attempt: 1, pass: true, cohort: "silent", fired: false },
      { task: "s1", arm: "policy", attempt: 1, pass: false, cohort: "silent", fired: true },
    ];
    const a = analyzeScreen(obs);
    expect(a.cohorts).toEqual(["eligible", "silent", "all"]);
    const kinds = a.findings.map((x) => x.verdict);
    expect(kinds).toContain("harmful");
    expect(kinds).toContain("over-broad");
    expect(kinds).not.toContain("promising");
    expect(a.findings.find((x) => x.verdict === "harmful")).toMatchObject({
      code: "pass-to-fail",
      tasks: [{ task: "s1", cohort: "silent" }],
    });
  });

  it("a policy that never fires is inert", () => {
    const obs = expand(SOL).map((o) => ({ ...o, fired: false }));
    expect(analyzeScreen(obs).findings.map((x) => x.verdict)).toContain("inert");
  });
});

describe("verdict thresholds (fire.config.json `verdicts`)", () => {
  const silentLoss: Observation[] = [
    ...expand(SOL).map((o) => ({ ...o, cohort: "eligible", fired: o.arm === "policy" })),
    { task: "s1", arm: "baseline", attempt: 1, pass: true, cohort: "silent", fired: false },
    { task: "s1", arm: "policy", attempt: 1, pass: false, cohort: "silent", fired: false },
  ];
  it("tolerates pass→fail tasks up to harmfulMaxPassToFail", () => {
    const strict = analyzeScreen(silentLoss).findings.map((v) => v.verdict);
    expect(strict).toContain("harmful");
    const lenient = analyzeScreen(silentLoss, {
      thresholds: { ...DEFAULT_THRESHOLDS, harmfulMaxPassToFail: 1 },
    }).findings.map((v) => v.verdict);
    expect(lenient).not.toContain("harmful");
  });
  it("calls a policy firing on under inertMinFiringRate of positive attempts inert", () => {
    // fires on 1 of 21 eligible policy attempts
    const obs = expand(SOL).map((o) => ({
      ...o,
      cohort: "eligible",
      fired: o.arm === "policy" && o.task === "t1" && o.attempt === 1,
    }));
    const v = analyzeScreen(obs).findings.find((x) => x.verdict === "inert");
    expect(v).toEqual({
      code: "run-positive-firing",
      verdict: "inert",
      rate: 1 / 21,
      n: 21,
      min: 0.5,
    });
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
