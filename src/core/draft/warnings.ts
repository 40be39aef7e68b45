import type { Cluster } from "../mine/cluster.js";
import type { Attempt } from "../model/attempt.js";
import { compilePolicy } from "../policy/compile.js";
import { replayAttempt } from "../policy/replay.js";
import type { Candidate } from "../policy/schema.js";
import { routeAudit, taskTexts } from "../route/audit.js";

/** What a fresh draft does on the workspace: where it routes and whether it fires. */
export interface DraftCheck {
  /** Lineage tasks the draft routes, of all lineage tasks. */
  lineageRouted: number;
  lineageTasks: number;
  /** Tasks outside the lineage the draft routes (the nearby negatives screening will use). */
  outsideRouted: string[];
  /** Lineage attempts on which a replay of the draft fires, of all lineage attempts. */
  lineageFired: number;
  lineageAttempts: number;
  warnings: string[];
}

/**
 * Routes a draft over every task text of the workspace (the routing audit's own
 * `routeAudit`) and replays it on its lineage attempts (the evaluator's `step`), so
 * `fire draft` can warn when it routes nothing, misses its own tasks, routes mostly outside
 * its lineage, or would never fire where the failures happened.
 */
export function checkDraft(
  candidate: Candidate,
  cluster: Pick<Cluster, "taskIds" | "attemptIds">,
  attempts: readonly Attempt[],
): DraftCheck {
  const policy = compilePolicy(candidate);
  const audit = routeAudit([policy], taskTexts(attempts));
  const routed = new Set(audit.candidates[0]?.routed ?? []);
  const lineage = new Set(cluster.taskIds);
  const lineageRouted = [...lineage].filter((t) => routed.has(t)).length;
  const outsideRouted = [...routed].filter((t) => !lineage.has(t)).sort();
  const members = attempts.filter((a) => cluster.attemptIds.includes(a.id));
  const lineageFired = members.filter((a) => replayAttempt([policy], a).firings.length > 0).length;
  const warnings: string[] = [];
  if (routed.size === 0)
    warnings.push("routes no task of the workspace: its eligibility matches no task text");
  else if (lineageRouted === 0)
    warnings.push(
      `routes none of its own ${lineage.size} lineage task(s), only ${outsideRouted.length} task(s) outside its lineage`,
    );
  else if (lineageRouted < lineage.size)
    warnings.push(`routes ${lineageRouted} of its ${lineage.size} lineage task(s)`);
  if (outsideRouted.length > 0 && outsideRouted.length > 2 * Math.max(1, lineageRouted))
    warnings.push(
      `routes ${outsideRouted.length} task(s) outside its lineage (${outsideRouted.slice(0, 5).join(", ")}${outsideRouted.length > 5 ? ", …" : ""}): screen it on them before trusting it`,
    );
  if (members.length > 0 && lineageFired === 0)
    warnings.push(
      `fires on none of its ${members.length} lineage attempt(s) in replay: as drafted it would not have intervened`,
    );
  return {
    lineageRouted,
    lineageTasks: lineage.size,
    outsideRouted,
    lineageFired,
    lineageAttempts: members.length,
    warnings,
  };
}
