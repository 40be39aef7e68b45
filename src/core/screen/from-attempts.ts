import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { InputError } from "../errors.js";
import { parseHookLog } from "../hooklog.js";
import type { Attempt } from "../model/attempt.js";
import { hookEvidence, integrityProblem } from "./integrity.js";
import type { ScreenRow } from "./row.js";

/** Where a trial's hook log lives: Harbor mounts `agent/` as the agent's log folder. */
export const TRIAL_HOOK_LOG = join("agent", "fire-hook-log.jsonl");

export interface AttemptTags {
  arm?: string;
  replicate?: number;
  cohortOf?: (task: string) => string | undefined;
}

/** The trial directory of an attempt imported from a Harbor trial (file or dir path). */
export function trialDirOf(sourcePath: string): string {
  try {
    if (statSync(sourcePath).isDirectory()) return sourcePath;
  } catch {
    /* fall through: a file path */
  }
  const dir = dirname(sourcePath);
  return basename(dir) === "agent" ? dirname(dir) : dir;
}

/**
 * Scored screen rows from normalized attempts (a screen's Harbor job dirs): arm and
 * replicate from the tags, else from the attempt; attempts numbered per (task, arm,
 * replicate) in id order; the trial's hook log decides fired and integrity.
 */
export function rowsFromAttempts(
  attempts: readonly Attempt[],
  tags: AttemptTags,
  errors: InputError[],
): ScreenRow[] {
  const seen = new Map<string, number>();
  const sorted = [...attempts].sort((a, b) => a.id.localeCompare(b.id));
  return sorted.map((a) => {
    const arm = tags.arm ?? a.arm;
    const replicate = tags.replicate ?? a.replicate;
    const key = JSON.stringify([a.taskId, arm, replicate ?? null]);
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    const logPath = join(trialDirOf(a.source.path), TRIAL_HOOK_LOG);
    let evidence: ReturnType<typeof hookEvidence> | undefined;
    if (existsSync(logPath)) {
      const log = parseHookLog(readFileSync(logPath, "utf8"), logPath);
      errors.push(...log.errors);
      evidence = hookEvidence(log.entries);
    }
    const row: ScreenRow = {
      task: a.taskId,
      arm,
      attempt: a.attemptNo ?? n,
      pass: a.outcome === "pass",
      source: a.source.path,
      attemptId: a.id,
    };
    if (replicate !== undefined) row.replicate = replicate;
    const cohort = tags.cohortOf?.(a.taskId);
    if (cohort) row.cohort = cohort;
    if (typeof a.costUsd === "number") row.cost = a.costUsd;
    if (a.durationS !== undefined) row.durationS = a.durationS;
    if (evidence) row.fired = evidence.firings > 0;
    const problem = integrityProblem(arm, evidence);
    if (problem) row.unscorable = problem;
    return row;
  });
}
