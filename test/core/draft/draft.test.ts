import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answersOf, hygieneProblems, pathsOf } from "../../../src/core/draft/hygiene.js";
import { draftFromTemplate, finishDraft } from "../../../src/core/draft/template-drafter.js";
import { loadTemplates } from "../../../src/core/draft/templates.js";
import { FAMILIES } from "../../../src/core/families.js";
import { type Demo, minedDemo } from "./demo.js";

const NOW = new Date("2026-11-30T00:00:00Z");

describe("template drafter on the demo workspace", () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await minedDemo();
  }, 60_000);
  afterAll(() => demo.cleanup());

  it("has a template for every known family (8 reference + stop-without-check)", () => {
    const t = loadTemplates();
    expect(t.errors).toEqual([]);
    expect([...t.byFamily.keys()].sort()).toEqual([...FAMILIES].sort());
  });

  it("drafts one valid, lineage-carrying draft per planted family cluster", () => {
    const templates = loadTemplates();
    const families = demo.mined.clusters.map((c) => c.family).sort();
    expect(families).toEqual([...FAMILIES].sort());
    for (const c of demo.mined.clusters) {
      const members = demo.ws.attempts.filter((a) => c.attemptIds.includes(a.id));
      const r = draftFromTemplate(c, members, templates, NOW);
      expect(r.ok, `${c.family}: ${r.ok ? "" : r.problems.join("; ")}`).toBe(true);
      if (!r.ok) continue;
      expect(r.candidate.status).toBe("draft");
      expect(r.candidate.family).toBe(c.family);
      expect(r.candidate.lineage.clusters).toEqual([c.id]);
      expect(r.candidate.lineage.attempts).toEqual(c.attemptIds);
      expect(r.candidate.history).toEqual([
        { at: NOW.toISOString(), status: "draft", note: expect.stringContaining(c.id) },
      ]);
      expect(r.candidate.id).toMatch(new RegExp(`^draft-${c.family}-[0-9a-f]{6}$`));
    }
  });

  it("refuses a draft whose rule text names a task id or a path the cluster's attempts touched", () => {
    const c = demo.cluster("service-persistence");
    const members = demo.ws.attempts.filter((a) => c.attemptIds.includes(a.id));
    const paths = pathsOf(members);
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.some((p) => p.startsWith("/dev/") || p.startsWith("/tmp/"))).toBe(false);
    const t = loadTemplates().byFamily.get("service-persistence")!;
    const bad = {
      ...t,
      rules: [
        { ...t.rules[0]!, message: `Restart ${c.taskIds[0]} from ${paths[0]} before you stop.` },
      ],
    };
    const r = finishDraft(bad, c, members, NOW, "test");
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems).toContain(`rule text names the task ${c.taskIds[0]}`);
    expect(r.problems).toContain(`rule text names the path ${paths[0]}`);
    expect(hygieneProblems(t, { taskIds: c.taskIds, paths })).toEqual([]);
  });

  it("never returns a half-valid draft: schema errors and unsafe patterns are problems", () => {
    const c = demo.cluster("latex-final-log");
    const t = loadTemplates().byFamily.get("latex-final-log")!;
    const noRules = finishDraft({ ...t, rules: [] }, c, [], NOW, "x");
    expect(noRules.ok).toBe(false);
    if (!noRules.ok) expect(noRules.problems[0]).toMatch(/^rules: /);
    const unsafe = finishDraft(
      { ...t, eligibility: { allOf: [], anyOf: ["(\\w+)\\1"], noneOf: [] } },
      c,
      [],
      NOW,
      "x",
    );
    expect(unsafe.ok).toBe(false);
    if (!unsafe.ok) expect(unsafe.problems[0]).toMatch(/^eligibility\.anyOf\.0: .*linear time/);
  });

  it("refuses a draft that writes an answer the cluster's attempts produced", () => {
    const c = demo.cluster("dataset-token-accounting");
    const members = demo.ws.attempts.filter((a) => c.attemptIds.includes(a.id));
    const answers = answersOf(members);
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.every((v) => /\d/.test(v))).toBe(true);
    const t = loadTemplates().byFamily.get("dataset-token-accounting")!;
    const bad = { ...t, rules: [{ ...t.rules[0]!, message: `The answer is ${answers[0]}.` }] };
    const r = finishDraft(bad, c, members, NOW, "test");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems).toContain(`rule text names the answer ${answers[0]}`);
  });
});
