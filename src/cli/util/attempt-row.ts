import { eventCountOf } from "../../core/app/open.js";
import type { Attempt } from "../../core/model/attempt.js";
import type { Workspace } from "../../core/workspace/load.js";

/** One line of `fire attempts --json`: the fields scripts filter on. */
export interface AttemptRow {
  id: string;
  taskId: string;
  outcome: Attempt["outcome"];
  reward: number | null;
  agent: string | null;
  model: string | null;
  format: Attempt["source"]["format"];
  nEvents: number;
}

/** The row of an attempt of `ws` (its event count from the index when it has one: no events read). */
export function attemptRow(ws: Workspace, a: Attempt): AttemptRow {
  return {
    id: a.id,
    taskId: a.taskId,
    outcome: a.outcome,
    reward: a.reward ?? null,
    agent: a.agent ?? null,
    model: a.model ?? null,
    format: a.source.format,
    nEvents: eventCountOf(ws, a),
  };
}

/** Failed means the attempt ran and did not pass: fail, error or timeout (not unknown). */
export function isFailed(a: Attempt): boolean {
  return a.outcome === "fail" || a.outcome === "error" || a.outcome === "timeout";
}
