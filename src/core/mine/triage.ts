import type { Attempt } from "../model/attempt.js";
import type { Label } from "./label.js";

/** Why an attempt is out of mining scope. */
export type ExclusionReason =
  | "provider_fault"
  | "verifier_fault"
  | "capability_gap"
  | "no_intervention_point"
  | "no_outcome"
  | "excluded_by_user";

export interface ExcludedAttempt {
  attemptId: string;
  taskId: string;
  arm: string;
  reason: ExclusionReason;
  detail: string;
}

/**
 * "reachable" = passes sometimes (k/n with 0<k<n); "unsolved" = 0/n; "solved" = n/n;
 * "excluded" = every attempt of the task was excluded (n = 0).
 */
export type TaskStatus = "reachable" | "unsolved" | "solved" | "excluded";

export interface TaskTriage {
  taskId: string;
  arm: string;
  passes: number;
  /** Attempts with a usable outcome (excluded attempts are not counted). */
  n: number;
  status: TaskStatus;
  /** Every attempt id of the task in this arm. */
  attemptIds: string[];
  /** Failed, not-excluded attempts: what mining labels. */
  failedIds: string[];
}

export interface TriageResult {
  /** Reachable tasks first, then unsolved, then solved; by task id within each. */
  tasks: TaskTriage[];
  exclusions: ExcludedAttempt[];
  /** Attempt ids in mining scope (failed, not excluded), in task order. */
  inScope: string[];
}

export interface TriageOptions {
  /** Substrings of verifier output that mark a verifier fault (`mining.verifierFaultMarkers`). */
  verifierFaultMarkers?: readonly string[];
  /** Labels already known: their capability_gap / no_intervention_point exclusions apply. */
  labels?: ReadonlyMap<string, Label>;
  /** Attempts the user excluded (`fire cluster exclude`), with their reasons. */
  userExcluded?: ReadonlyMap<string, string>;
}

/** Harbor (and similar) exception types that mean the infrastructure, not the agent, failed. */
const INFRA_EXCEPTION =
  /(Environment|Docker|Container|Setup|Provision|Network|Connection|Provider|RateLimit|APIError|ApiError|ServiceUnavailable|InternalServer|Authentication|BadRequest|Upstream|LLM|Model(?:Not)?|Quota|Overloaded|NonZeroAgentExitCode)/;
const VERIFIER_EXCEPTION = /(Verifier|RewardFile|Reward|Grader|Judge|Parser)/;
const AGENT_MSG = /\S/;

/** Classifies an attempt's exclusion from outside facts (no labels needed). */
export function faultOf(
  a: Attempt,
  markers: readonly string[] = [],
): { reason: ExclusionReason; detail: string } | undefined {
  const type = a.exception?.type;
  if (type && VERIFIER_EXCEPTION.test(type) && !/Agent/.test(type)) {
    return { reason: "verifier_fault", detail: `exception ${type}` };
  }
  if (type && INFRA_EXCEPTION.test(type) && !/^Agent(?:Execution)?Timeout/.test(type)) {
    return {
      reason: "provider_fault",
      detail: `exception ${type}${a.exception?.message ? `: ${a.exception.message.slice(0, 120)}` : ""}`,
    };
  }
  if (a.events.length === 0) return { reason: "provider_fault", detail: "empty trace" };
  const acted = a.events.some(
    (e) =>
      e.kind === "tool_call" ||
      (e.kind === "message" &&
        e.role !== "user" &&
        e.role !== "system" &&
        AGENT_MSG.test(e.input ?? "")),
  );
  if (!acted)
    return { reason: "provider_fault", detail: "agent never acted (no tool call, no message)" };
  const out = (a.verifierOutput ?? "").toLowerCase();
  const marker = markers.find((m) => out.includes(m.toLowerCase()));
  if (marker !== undefined)
    return { reason: "verifier_fault", detail: `verifier output contains "${marker}"` };
  if (a.outcome === "unknown") return { reason: "no_outcome", detail: "no verifier outcome" };
  return undefined;
}

const STATUS_ORDER: Record<TaskStatus, number> = {
  reachable: 0,
  unsolved: 1,
  solved: 2,
  excluded: 3,
};

/**
 * Groups attempts by task and arm, counts k/n passes, and keeps every exclusion with
 * its reason. Pure and deterministic.
 */
export function triage(attempts: readonly Attempt[], opts: TriageOptions = {}): TriageResult {
  const markers = opts.verifierFaultMarkers ?? [];
  const exclusions: ExcludedAttempt[] = [];
  const groups = new Map<
    string,
    { taskId: string; arm: string; all: Attempt[]; kept: Attempt[] }
  >();
  for (const a of attempts) {
    const key = `${a.taskId}\u0000${a.arm}`;
    const g = groups.get(key) ?? { taskId: a.taskId, arm: a.arm, all: [], kept: [] };
    groups.set(key, g);
    g.all.push(a);
    const fault = a.outcome === "pass" ? undefined : faultOf(a, markers);
    if (fault) {
      exclusions.push({ attemptId: a.id, taskId: a.taskId, arm: a.arm, ...fault });
      continue;
    }
    const userReason = a.outcome === "pass" ? undefined : opts.userExcluded?.get(a.id);
    if (userReason !== undefined) {
      exclusions.push({
        attemptId: a.id,
        taskId: a.taskId,
        arm: a.arm,
        reason: "excluded_by_user",
        detail: userReason,
      });
      continue;
    }
    const label = opts.labels?.get(a.id);
    if (
      a.outcome !== "pass" &&
      label &&
      (label.exclusion === "capability_gap" || label.exclusion === "no_intervention_point")
    ) {
      exclusions.push({
        attemptId: a.id,
        taskId: a.taskId,
        arm: a.arm,
        reason: label.exclusion,
        detail: `labeller (${label.source}): ${label.rationale.slice(0, 160)}`,
      });
      continue;
    }
    g.kept.push(a);
  }
  const tasks: TaskTriage[] = [...groups.values()].map((g) => {
    const passes = g.kept.filter((a) => a.outcome === "pass").length;
    const n = g.kept.length;
    const status: TaskStatus =
      n === 0 ? "excluded" : passes === 0 ? "unsolved" : passes === n ? "solved" : "reachable";
    return {
      taskId: g.taskId,
      arm: g.arm,
      passes,
      n,
      status,
      attemptIds: g.all.map((a) => a.id).sort(),
      failedIds: g.kept
        .filter((a) => a.outcome !== "pass")
        .map((a) => a.id)
        .sort(),
    };
  });
  tasks.sort(
    (x, y) =>
      STATUS_ORDER[x.status] - STATUS_ORDER[y.status] ||
      (x.taskId < y.taskId ? -1 : x.taskId > y.taskId ? 1 : 0) ||
      (x.arm < y.arm ? -1 : x.arm > y.arm ? 1 : 0),
  );
  exclusions.sort((x, y) => (x.attemptId < y.attemptId ? -1 : x.attemptId > y.attemptId ? 1 : 0));
  return { tasks, exclusions, inScope: tasks.flatMap((t) => t.failedIds) };
}
