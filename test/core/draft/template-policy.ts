import { expect } from "vitest";
import { draftFromTemplate } from "../../../src/core/draft/template-drafter.js";
import { loadTemplates } from "../../../src/core/draft/templates.js";
import { type Cluster, clusterId } from "../../../src/core/mine/cluster.js";
import { mechanismById } from "../../../src/core/mine/mechanisms.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { compilePolicy } from "../../../src/core/policy/compile.js";
import { replayAttempt } from "../../../src/core/policy/replay.js";
import { Candidate } from "../../../src/core/policy/schema.js";

/**
 * The candidate a mechanism's template drafts from a cluster of `members`, routed everywhere
 * (only its trigger decides), after checking the template it came from.
 */
export function templatePolicy(mechanismId: string, members: Attempt[]): Candidate {
  const m = mechanismById(mechanismId);
  if (!m) throw new Error(`no mechanism ${mechanismId}`);
  const ids = members.map((a) => a.id).sort();
  const cluster: Cluster = {
    id: clusterId(ids),
    name: mechanismId,
    named: false,
    mechanism: m.name,
    mechanismId,
    interventionPoint: m.point,
    attemptIds: ids,
    taskIds: members.map((a) => a.taskId).sort(),
    detectors: [],
    evidence: [],
  };
  const r = draftFromTemplate(cluster, members, loadTemplates(), new Date("2026-12-02T00:00:00Z"));
  if (!r.ok) throw new Error(r.problems.join("; "));
  expect(r.template).toBe(`tmpl-${mechanismId}@1`);
  return Candidate.parse({ ...r.candidate, eligibility: { allOf: [], anyOf: [], noneOf: [] } });
}

/** The rules a candidate fires on an attempt, replayed by the one evaluator: `rule@event`. */
export const fired = (c: Candidate, a: Attempt): string[] =>
  replayAttempt([compilePolicy(c)], a).firings.map((f) => `${f.ruleId}@${f.eventIndex}`);
