import { workspacePaths } from "../workspace/paths.js";
import { readKeyed, writeKeyed, writeKeyedSync } from "../workspace/stamped-cache.js";
import type { TaskStatus, TriageResult } from "./triage.js";

/**
 * What the workbench's first frame shows of triage: the attempt, exclusion and task counts
 * and each task's row (k/n, status, attempt count), without attempt ids or evidence (a few
 * hundred KB at 100,000 attempts, where the whole triage is 34 MB). Kept beside the index
 * (`.fire/cache/triage-glance.json`, safe to delete) under triage's own key
 * (core/mine/triage-cache.ts: the index's digest, the label store, decisions and hand outcomes
 * by stamp, the fault markers, the code of core/), so it is served only while it is what
 * triage would compute: the workbench draws its first frame from it, before the index is read.
 */
const VERSION = 1;

export interface GlanceTask {
  taskId: string;
  arm: string;
  passes: number;
  n: number;
  status: TaskStatus;
  /** How many attempts the task has in this arm. */
  attempts: number;
}

export interface TriageGlance {
  attempts: number;
  excluded: number;
  /** In triage's order. */
  tasks: GlanceTask[];
}

/** The glance of a triage over `attempts` attempts. */
export function glanceOf(attempts: number, t: TriageResult): TriageGlance {
  return {
    attempts,
    excluded: t.exclusions.length,
    tasks: t.tasks.map((x) => ({
      taskId: x.taskId,
      arm: x.arm,
      passes: x.passes,
      n: x.n,
      status: x.status,
      attempts: x.attemptIds.length,
    })),
  };
}

/** The glance stored under `key`, only when its bytes are the ones fire wrote. */
export function readTriageGlance(dir: string, key: string): TriageGlance | undefined {
  return readKeyed<TriageGlance>(workspacePaths(dir).triageGlance, VERSION, key);
}

/** Stores a glance under `key`; failing to write only means the next open reads the index. */
export function writeTriageGlance(dir: string, key: string, glance: TriageGlance): Promise<void> {
  return writeKeyed(workspacePaths(dir).triageGlance, VERSION, key, glance);
}

/** `writeTriageGlance` without awaiting: the workbench may quit at the next key. */
export function writeTriageGlanceSync(dir: string, key: string, glance: TriageGlance): void {
  writeKeyedSync(workspacePaths(dir).triageGlance, VERSION, key, glance);
}
