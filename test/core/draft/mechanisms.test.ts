import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hygieneProblems, pathsOf } from "../../../src/core/draft/hygiene.js";
import { DEADLINE_MIN, paramsOf } from "../../../src/core/draft/mechanism-template.js";
import { draftFromTemplate } from "../../../src/core/draft/template-drafter.js";
import { loadTemplates } from "../../../src/core/draft/templates.js";
import { checkDraft } from "../../../src/core/draft/warnings.js";
import { type Cluster, clusterId } from "../../../src/core/mine/cluster.js";
import { MECHANISMS } from "../../../src/core/mine/mechanisms.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { compilePolicy } from "../../../src/core/policy/compile.js";
import { replayAttempt } from "../../../src/core/policy/replay.js";
import { Candidate } from "../../../src/core/policy/schema.js";
import { taskTexts } from "../../../src/core/route/audit.js";
import type { Workspace } from "../../../src/core/workspace/load.js";
import { attemptByPrefix, loadOpenclaw, removeTempWorkspaces } from "../mine/demo-workspace.js";

const NOW = new Date("2026-12-01T00:00:00Z");
let ws: Workspace;

beforeAll(async () => {
  ws = await loadOpenclaw();
});
afterAll(removeTempWorkspaces);

/** A cluster of real OpenClaw attempts labelled with one mechanism (as the miner groups them). */
function clusterOf(mechanismId: string, prefixes: string[], signature?: string): Cluster {
  const members = prefixes.map((p) => attemptByPrefix(ws.attempts, p));
  const ids = members.map((a) => a.id).sort();
  return {
    id: clusterId(ids),
    name: mechanismId,
    named: false,
    mechanism: MECHANISMS.find((m) => m.id === mechanismId)?.name ?? mechanismId,
    mechanismId,
    ...(signature ? { signature } : {}),
    interventionPoint: "stop",
    attemptIds: ids,
    taskIds: [...new Set(members.map((a) => a.taskId))].sort(),
    detectors: [],
    evidence: [],
  };
}

function draft(c: Cluster): Candidate {
  const members = ws.attempts.filter((a) => c.attemptIds.includes(a.id));
  const r = draftFromTemplate(c, members, loadTemplates(), NOW, { tasks: taskTexts(ws.attempts) });
  if (!r.ok) throw new Error(r.problems.join("; "));
  expect(r.template).toBe(`tmpl-${c.mechanismId}@1`);
  expect(r.candidate.family).toBe(c.mechanismId);
  // never names a task, a path the members touched, or their answers
  expect(hygieneProblems(r.candidate, { taskIds: c.taskIds, paths: pathsOf(members) })).toEqual([]);
  return r.candidate;
}

/** Rule ids fired (with event index) when the candidate is replayed on one attempt. */
function fired(c: Candidate, a: Attempt): string[] {
  return replayAttempt([compilePolicy(c)], a).firings.map((f) => `${f.ruleId}@${f.eventIndex}`);
}

/** The same mechanics with eligibility opened: a near miss must not fire even when routed. */
const routedEverywhere = (c: Candidate): Candidate =>
  Candidate.parse({ ...c, eligibility: { allOf: [], anyOf: [], noneOf: [] } });

const at = (prefix: string) => attemptByPrefix(ws.attempts, prefix);

describe("a template for every mechanism of the registry", () => {
  it("every open mechanism has its template; families keep theirs", () => {
    const t = loadTemplates();
    for (const m of MECHANISMS) {
      if (m.family) expect(t.byFamily.has(m.family), m.id).toBe(true);
      else expect(t.byMechanism.get(m.id)?.mechanismId, m.id).toBe(m.id);
    }
  });

  it("a cluster with no known mechanism gets no template draft (the generic one is no catch-all)", () => {
    const c = clusterOf("artifact-never-written", ["t3-data-pipeline-report"]);
    const { mechanismId: _m, ...bare } = c;
    const r = draftFromTemplate(bare, [], loadTemplates(), NOW);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems[0]).toMatch(/names no known mechanism/);
    const odd = draftFromTemplate({ ...c, mechanismId: "made-up" }, [], loadTemplates(), NOW);
    expect(odd.ok).toBe(false);
    if (!odd.ok) expect(odd.problems).toEqual(["no template for mechanism made-up"]);
  });
});

describe("templates drafted from real-trace clusters (harbor-openclaw)", () => {
  it("artifact never written: fires at stop on the trials that never wrote the named file", () => {
    const c = draft(clusterOf("artifact-never-written", ["t5-hallucination", "task-image-gen"]));
    expect(fired(c, at("t5-hallucination"))).toEqual(["write-named-file@807"]);
    expect(fired(c, at("task-image-gen"))).toEqual(["write-named-file@2"]);
    // near misses: the named report was written (and an input-only task names no output)
    const open = routedEverywhere(c);
    expect(fired(open, at("task-csv-stock-trend"))).toEqual([]);
    expect(fired(open, at("task-email-triage"))).toEqual([]);
  });

  it("artifact at another path: fires on the ICS one folder off and the tests beside the folder", () => {
    const c = draft(
      clusterOf(
        "artifact-wrong-path",
        ["task-calendar", "t2-add-tests"],
        "named:*.ics written:sub/*.ics",
      ),
    );
    expect(fired(c, at("task-calendar"))).toEqual(["check-location@6"]);
    // near miss: the report the task names was written at that path
    expect(fired(routedEverywhere(c), at("task-csv-stock-trend"))).toEqual([]);
    // the signature's kind decides which writes are deliverables: .ics only, not the tests
    expect(fired(routedEverywhere(c), at("t2-add-tests"))).toEqual([]);
  });

  it("deadline: after N tool calls without the named deliverable, instruct a minimal one", () => {
    const cl = clusterOf("deadline-no-deliverable", ["t5-hallucination"]);
    const c = draft(cl);
    const n = paramsOf(cl, [at("t5-hallucination")]).afterCalls;
    expect(n).toBe(60); // a quarter of its 403 calls, capped
    // the count is the fallback for a task that states no time limit (or untimed events)
    const when = c.rules[0]!.when!;
    expect(when.any?.[0]).toEqual({ elapsed: { share: 0.5, of: "limit" } });
    expect(when.any?.[1]).toMatchObject({ count: `calls >= ${n}`, not: { timed: "limit" } });
    const f = fired(c, at("t5-hallucination"));
    expect(f).toHaveLength(1);
    const idx = Number(f[0]!.split("@")[1]);
    const calls = at("t5-hallucination").events.filter(
      (e) => e.kind === "tool_call" && e.index <= idx,
    );
    expect(calls).toHaveLength(n);
    // near miss: 40 calls, also timed out, but its report existed long before — even at the
    // smallest threshold the mechanics stay silent
    const low = Candidate.parse({
      ...routedEverywhere(c),
      rules: [
        {
          ...c.rules[0]!,
          when: {
            ...when,
            any: [when.any![0]!, { ...when.any![1]!, count: `calls >= ${DEADLINE_MIN}` }],
          },
        },
      ],
    });
    expect(fired(low, at("task-log-hdfs-block-ops"))).toEqual([]);
    expect(fired(low, at("t5-hallucination"))).toHaveLength(1);
  });

  it("repeated tool error: the 3rd identical failing read, not two identical ones", () => {
    const c = draft(clusterOf("repeated-tool-error", ["t5-hallucination"]));
    expect(fired(c, at("t5-hallucination"))).toEqual([
      "change-approach@46",
      expect.stringMatching(/^still-repeating-12@\d+$/),
      expect.stringMatching(/^still-repeating-36@\d+$/),
    ]);
    // near miss: the same ENOENT twice (events 4 and 17), then a different approach
    expect(fired(routedEverywhere(c), at("t4-life-trip-plan__pk7EZC6"))).toEqual([]);
  });

  it("constraint unchecked: stopping after an edit without checking the result", () => {
    const c = draft(clusterOf("constraint-unchecked", ["t3-data-pipeline-report"]));
    expect(fired(c, at("t3-data-pipeline-report"))).toEqual(["check-constraints@12"]);
    // near miss: tests run after the last write
    expect(fired(routedEverywhere(c), at("t2-add-tests"))).toEqual([]);
  });

  it("task input missed: guessed paths failed and the working folder was never listed", () => {
    const c = draft(
      clusterOf("task-input-missed", ["t4-life-trip-plan__AjimJm5", "t4-life-trip-plan__pk7EZC6"]),
    );
    expect(fired(c, at("t4-life-trip-plan__AjimJm5"))).toEqual(["list-before-concluding@15"]);
    expect(fired(c, at("t4-life-trip-plan__pk7EZC6"))).toEqual(["list-before-concluding@28"]);
    // near misses: the named inputs were read where the task put them
    const open = routedEverywhere(c);
    expect(fired(open, at("task-csv-stock-trend"))).toEqual([]);
    expect(fired(open, at("t3-data-pipeline-report"))).toEqual([]);
  });

  it("a folder the task names but searched elsewhere (a same-named folder deep in a tool) is missed", () => {
    const c = routedEverywhere(draft(clusterOf("task-input-missed", ["t5-hallucination"])));
    expect(fired(c, at("t5-hallucination"))).toContain("open-named-inputs@807");
  });

  it("overwrite of an existing file: a read-then-write of the named input is a near miss", () => {
    const c = routedEverywhere(
      Candidate.parse({
        id: "t",
        version: 1,
        ...loadTemplates()
          .byMechanism.get("overwrote-existing-file")!
          .build(paramsOf(clusterOf("overwrote-existing-file", ["task-csv-stock-trend"]), [])),
      }),
    );
    // the task says the CSV exists; the agent read it and wrote a new report: no deny
    expect(fired(c, at("task-csv-stock-trend"))).toEqual([]);
  });
});

describe("learned eligibility and draft checks on the real trials", () => {
  it("learns shapes from the cluster's task texts, with routing counts, and never a task-id word", () => {
    const cl = clusterOf("artifact-wrong-path", ["task-calendar"]);
    const r = draftFromTemplate(cl, [at("task-calendar")], loadTemplates(), NOW, {
      tasks: taskTexts(ws.attempts),
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.learned?.phrases.map((p) => [p.label, p.positives, p.negatives])).toEqual([
      ['names the file kind "ics"', 1, 0],
    ]);
    expect(r.learned).toMatchObject({ positives: 1, negatives: 13, covered: 1, uncovered: [] });
    expect(JSON.stringify(r.candidate.eligibility)).not.toMatch(/calendar/i);
    expect(r.candidate.notes).toMatch(/names the file kind "ics" \(1\/1 vs 0\/13\)/);
  });

  it("checkDraft: lineage routed and fired, no warning for a fitting draft", () => {
    const cl = clusterOf("repeated-tool-error", ["t5-hallucination"]);
    const check = checkDraft(draft(cl), cl, ws.attempts);
    expect(check).toMatchObject({
      lineageRouted: 1,
      lineageTasks: 1,
      lineageFired: 1,
      lineageAttempts: 1,
    });
    expect(check.warnings).toEqual([]);
  });

  it("checkDraft warns when a draft routes nothing and would never fire on its lineage", () => {
    const cl = clusterOf("exact-replacement", ["t3-data-pipeline-report"]);
    const r = draftFromTemplate(
      { ...cl, family: "exact-replacement" },
      [at("t3-data-pipeline-report")],
      loadTemplates(),
      NOW,
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const check = checkDraft(r.candidate, cl, ws.attempts);
    expect(check.warnings).toEqual([
      "routes no task of the workspace: its eligibility matches no task text",
      "fires on none of its 1 lineage attempt(s) in replay: as drafted it would not have intervened",
    ]);
  });
});
