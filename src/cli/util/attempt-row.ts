import type { Attempt } from "../../core/model/attempt.js";

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

export function attemptRow(a: Attempt): AttemptRow {
  return {
    id: a.id,
    taskId: a.taskId,
    outcome: a.outcome,
    reward: a.reward ?? null,
    agent: a.agent ?? null,
    model: a.model ?? null,
    format: a.source.format,
    nEvents: a.events.length,
  };
}

/** Failed means the attempt ran and did not pass: fail, error or timeout (not unknown). */
export function isFailed(a: Attempt): boolean {
  return a.outcome === "fail" || a.outcome === "error" || a.outcome === "timeout";
}
