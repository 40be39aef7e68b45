import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { InputError } from "../../errors.js";
import { parseHookLog } from "../../hook-log.js";
import type { ArmName } from "../../model/arm.js";
import type { Attempt } from "../../model/attempt.js";
import type { Cohort } from "../../model/cohort.js";
import { replayAttempt } from "../../policy/replay.js";
import type { CompiledPolicy } from "../../policy/types.js";
import { hookEvidence, integrityProblem } from "./integrity.js";
import type { ScreenRow } from "./row.js";

/** Where a trial's hook log lives: Harbor mounts `agent/` as the agent's log folder. */
export const TRIAL_HOOK_LOG = join("agent", "fire-hook-log.jsonl");

export interface AttemptTags {
  arm?: ArmName;
  replicate?: number;
  cohortOf?: (task: string) => Cohort | undefined;
  /**
   * The real policy, replayed over every attempt of every arm with the one evaluator:
   * `risky` = one of its rules would fire (the risky state was observed), `behavior` = its
   * registered behaviour marker held. Same marker in every arm.
   */
  markers?: CompiledPolicy[];
  /** Exception types that count as provider failures (the plan's replacement rule). */
  providerFailures?: readonly string[];
}

/** The trial directory of an attempt imported from a Harbor trial (file or dir path). */
export function trialDirOf(sourcePath: string): string {
  let dir = sourcePath;
  try {
    if (!statSync(sourcePath).isDirectory()) dir = dirname(sourcePath);
  } catch {
    dir = dirname(sourcePath); // a file path
  }
  if (basename(dir) === "agent") dir = dirname(dir);
  // a multi-step trial's steps/<name>/agent/…: the trial is above steps/
  if (basename(dirname(dir)) === "steps") dir = dirname(dirname(dir));
  return dir;
}

/**
 * Every hook log of a trial: `agent/fire-hook-log.jsonl`, and in a multi-step trial (whose
 * `agent/` Harbor moves to `steps/<name>/agent/` after each step) each step's, in step order.
 */
export function trialHookLogs(trialDir: string): string[] {
  const logs = [join(trialDir, TRIAL_HOOK_LOG)];
  const steps = join(trialDir, "steps");
  let names: string[] = [];
  try {
    names = readdirSync(steps).sort();
  } catch {
    // a single-step trial
  }
  for (const n of names) logs.push(join(steps, n, TRIAL_HOOK_LOG));
  return logs.filter((f) => existsSync(f));
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
    let evidence: ReturnType<typeof hookEvidence> | undefined;
    const logs = trialHookLogs(trialDirOf(a.source.path));
    if (logs.length) {
      const entries = logs.flatMap((logPath) => {
        const log = parseHookLog(readFileSync(logPath, "utf8"), logPath);
        errors.push(...log.errors);
        return log.entries;
      });
      evidence = hookEvidence(entries);
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
    if (tags.markers?.length) {
      const replay = replayAttempt(tags.markers, a);
      row.risky = replay.firings.length > 0;
      row.behavior = replay.policies.some((p) => p.behavior);
    }
    const provider =
      a.exception && tags.providerFailures?.includes(a.exception.type)
        ? `provider failure: ${a.exception.type}`
        : undefined;
    const problem = provider ?? integrityProblem(arm, evidence);
    if (problem) row.unscorable = problem;
    return row;
  });
}
