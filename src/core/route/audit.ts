import type { Attempt } from "../model/attempt.js";
import { eligibilityOf } from "../policy/evaluator.js";
import type { CompiledPolicy } from "../policy/types.js";

/**
 * Routing audit: every candidate's eligibility (E) applied to every task text of the
 * workspace, through the evaluator's own `eligibilityOf` (no second matcher).
 */

export interface TaskText {
  taskId: string;
  text: string;
}

export interface RouteCell {
  /** `id@version` of the candidate. */
  policy: string;
  family: string;
  /** The phrase that matched (absent for an eligibility with no positive pattern). */
  matched?: string;
}

export interface RouteRow {
  taskId: string;
  routes: RouteCell[];
}

export interface RouteCandidate {
  policy: string;
  family: string;
  file?: string;
  /** Tasks this candidate routes. */
  routed: string[];
}

export interface RouteAudit {
  tasks: number;
  candidates: RouteCandidate[];
  /** Task × candidate matrix, one row per task (only eligible cells listed). */
  matrix: RouteRow[];
  /** Tasks routed to candidates of more than one family. */
  multiFamily: { taskId: string; families: string[] }[];
  /** Candidates that route no task. */
  idle: string[];
  /** Tasks no candidate routes. */
  silent: string[];
}

/** One task text per task id: the first non-empty task text among its attempts, sorted by id. */
export function taskTexts(attempts: readonly Attempt[]): TaskText[] {
  const byTask = new Map<string, string>();
  for (const a of attempts) {
    const t = a.taskText ?? "";
    if (!byTask.has(a.taskId) || (byTask.get(a.taskId) === "" && t !== "")) byTask.set(a.taskId, t);
  }
  return [...byTask.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([taskId, text]) => ({ taskId, text }));
}

export function routeAudit(
  policies: readonly CompiledPolicy[],
  tasks: readonly TaskText[],
): RouteAudit {
  const candidates: RouteCandidate[] = policies.map((p) => ({
    policy: p.key,
    family: p.family,
    ...(p.file === undefined ? {} : { file: p.file }),
    routed: [],
  }));
  const matrix: RouteRow[] = [];
  const multiFamily: RouteAudit["multiFamily"] = [];
  const silent: string[] = [];
  for (const t of tasks) {
    const routes: RouteCell[] = [];
    policies.forEach((p, i) => {
      // A task without text routes nowhere (eligibility is decided on text only).
      if (t.text === "") return;
      const r = eligibilityOf(p, t.text);
      if (!r.eligible) return;
      routes.push({
        policy: p.key,
        family: p.family,
        ...(r.matched === undefined ? {} : { matched: r.matched }),
      });
      candidates[i]!.routed.push(t.taskId);
    });
    matrix.push({ taskId: t.taskId, routes });
    const families = [...new Set(routes.map((r) => r.family))].sort();
    if (families.length > 1) multiFamily.push({ taskId: t.taskId, families });
    if (routes.length === 0) silent.push(t.taskId);
  }
  return {
    tasks: tasks.length,
    candidates,
    matrix,
    multiFamily,
    idle: candidates.filter((c) => c.routed.length === 0).map((c) => c.policy),
    silent,
  };
}

/**
 * Whether the audit is acceptable for one candidate: it routes at least one task, and none of
 * the tasks it routes is also routed to a candidate of another family.
 */
export function routingProblems(audit: RouteAudit, policy: string): string[] {
  const c = audit.candidates.find((x) => x.policy === policy);
  if (!c) return [`${policy} is not in the routing audit`];
  const problems: string[] = [];
  if (c.routed.length === 0) problems.push(`${policy} routes no task`);
  for (const m of audit.multiFamily) {
    if (c.routed.includes(m.taskId))
      problems.push(`${policy}: task ${m.taskId} is routed to ${m.families.join(" and ")}`);
  }
  return problems;
}
