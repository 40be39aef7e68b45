import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { draftFromTemplate } from "../../../src/core/draft/template-drafter.js";
import { loadTemplates } from "../../../src/core/draft/templates.js";
import { compilePolicy } from "../../../src/core/policy/compile.js";
import { loadPolicies } from "../../../src/core/policy/load.js";
import type { Candidate } from "../../../src/core/policy/schema.js";
import { Candidate as CandidateSchema } from "../../../src/core/policy/schema.js";
import { runReplayScreen } from "../../../src/core/screening/replay/measure.js";
import {
  readReplayScreen,
  saveReplayScreen,
} from "../../../src/core/screening/replay/screen-files.js";
import { deciding } from "../../../src/core/verdict/finding.js";
import { defaultConfig } from "../../../src/core/workspace/config.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { type Demo, minedDemo } from "../draft/demo.js";

const NOW = new Date("2026-11-30T00:00:00Z");

describe("replay screen on the demo workspace", () => {
  let demo: Demo;
  let drafted: Candidate;
  let preFailure: Map<string, number>;
  beforeAll(async () => {
    demo = await minedDemo();
    const c = demo.cluster("service-persistence");
    const r = draftFromTemplate(
      c,
      demo.ws.attempts.filter((a) => c.attemptIds.includes(a.id)),
      loadTemplates(),
      NOW,
    );
    if (!r.ok) throw new Error(r.problems.join("; "));
    drafted = r.candidate;
    preFailure = new Map(
      demo.mined.labels.flatMap((l) =>
        l.preFailureState ? [[l.attemptId, l.preFailureState.eventIndex] as const] : [],
      ),
    );
  }, 60_000);
  afterAll(() => demo.cleanup());

  const others = () =>
    loadPolicies([`${REPO_ROOT}/candidates/reference`]).policies.filter(
      (p) => p.family !== "service-persistence",
    );
  const screen = (c: Candidate) =>
    runReplayScreen({
      policy: compilePolicy(c),
      others: others(),
      attempts: demo.ws.attempts,
      preFailure,
      sizes: { similar: 4, silent: 6 },
      seed: 1,
      thresholds: defaultConfig().verdicts,
      now: NOW,
    });

  it("a drafted cluster candidate replays as promising, firing in time on every positive", async () => {
    const s = screen(drafted);
    expect(s.verdict.verdict).toBe("promising");
    expect(s.sets.positiveAttempts).toEqual(drafted.lineage.attempts);
    expect(s.summary.positiveFiring).toEqual({ n: 3, k: 3, rate: 1 });
    expect(s.summary.positiveTimely.k).toBe(3);
    for (const p of s.positives) {
      expect(p.first?.ruleId).toBe("detach-and-probe");
      expect(p.atStop).toBe(true);
      expect(p.preFailure).toBeLessThan(p.first!.eventIndex);
      expect(p.behavior).toBe(false); // the failed attempts never detached + probed
    }
    const kinds = s.negatives.map((n) => n.kind);
    expect(kinds.filter((k) => k === "similar").length).toBe(4);
    expect(kinds.filter((k) => k === "silent").length).toBe(6);
    // (a) the service task whose policy-free attempts all passed
    expect(s.negatives.filter((n) => n.kind === "passing-eligible").map((n) => n.taskId)).toEqual([
      "metrics-exporter-daemon",
    ]);
    expect(s.summary.negativeFiring.k).toBe(0);
    expect(s.summary.silentRouting.k).toBe(0);
    expect(s.summary.instructionTokens["detach-and-probe"]).toBe(
      Math.ceil(drafted.rules[0]!.message.length / 4),
    );
    expect(s.summary.meanAddedTokensPerPositive).toBe(
      s.summary.instructionTokens["detach-and-probe"],
    );
    const file = await saveReplayScreen(demo.dir, s);
    expect(file).toBe(`${demo.dir}/screens/replay/${drafted.id}-v1/screen.json`);
    expect(readReplayScreen(demo.dir, `${drafted.id}@1`)?.verdict.verdict).toBe("promising");
  });

  it("an over-broad edit (eligibility that matches any task) is flagged over-broad", () => {
    const broad = CandidateSchema.parse({
      ...drafted,
      version: 2,
      eligibility: { anyOf: [{ pattern: "\\b(the|a|an)\\b", flags: "i" }] },
      rules: [{ ...drafted.rules[0]!, when: {} }],
    });
    const s = screen(broad);
    expect(s.verdict.verdict).toBe("over-broad");
    expect(s.summary.silentRouting.rate).toBeGreaterThan(0.25);
    expect(deciding(s.verdict).map((f) => f.code)).toContain("silent-routing");
  });

  it("a rule that never holds is inert", () => {
    const inert = CandidateSchema.parse({
      ...drafted,
      rules: [{ ...drafted.rules[0]!, when: { flag: "never_set" } }],
    });
    const s = screen(inert);
    expect(s.verdict.verdict).toBe("inert");
    expect(s.summary.positiveFiring.k).toBe(0);
    expect(deciding(s.verdict)).toEqual([
      expect.objectContaining({ code: "positive-timely", timely: { k: 0, n: 3, rate: 0 } }),
    ]);
  });

  it("the generic stop-without-check template drafts a promising candidate for its cluster", () => {
    const c = demo.cluster("stop-without-check");
    const r = draftFromTemplate(c, demo.ws.attempts, loadTemplates(), NOW);
    if (!r.ok) throw new Error(r.problems.join("; "));
    const s = screen(r.candidate);
    expect(s.verdict.verdict).toBe("promising");
    expect(s.positives.map((p) => [p.taskId, p.first?.ruleId, p.atStop])).toEqual([
      ["incident-report-json", "check-artifact", true],
    ]);
    // the marker separates: never in the failed attempt, mostly in passing negatives
    expect(s.summary.behaviorPositive.k).toBe(0);
    expect(s.summary.behaviorNegative.rate).toBeGreaterThan(0.5);
  });
});
