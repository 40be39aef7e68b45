import { basename, join } from "node:path";
import { isDir, isFile, peek, subdirs } from "./fs-util.js";
import { looksLikeTrial, readHarborTrial, type TaskNamesByFolder } from "./harbor.js";
import { HarborJobResult, HarborTrialResult } from "./harbor-schema.js";
import { readJsonAs } from "./json-file.js";
import type { Importer, IngestItem, IngestOptions } from "./types.js";

/**
 * A Harbor job folder: a job-level `result.json` (no `trial_name`) beside
 * trial folders. Every trial is read; a broken one is reported, the rest load.
 */
export async function looksLikeJob(dir: string): Promise<boolean> {
  const result = join(dir, "result.json");
  if (!isFile(result)) return false;
  if (/"trial_name"\s*:/.test(peek(result))) return false;
  for (const name of subdirs(dir)) if (await looksLikeTrial(join(dir, name))) return true;
  return false;
}

/** Subfolders that are trials or meant to be (a result.json or an agent/ folder). */
async function trialDirs(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of subdirs(dir)) {
    const d = join(dir, name);
    if (isDir(join(d, "agent")) || isFile(join(d, "result.json")) || isDir(join(d, "result.json")))
      out.push(d);
  }
  return out;
}

/**
 * The task names the finished trials record by their task folder's name, where the two
 * differ (a `task.toml` naming the task `org/name`); a folder name two names claim is left
 * out. Read only when some trial did not finish: only such a trial lacks the name.
 */
async function taskNamesByFolder(trials: readonly string[]): Promise<TaskNamesByFolder> {
  const names = new Map<string, string | null>();
  if (trials.every((t) => isFile(join(t, "result.json")))) return new Map();
  for (const t of trials) {
    const file = join(t, "result.json");
    if (!isFile(file)) continue;
    const res = await readJsonAs(file, HarborTrialResult, "a Harbor trial result");
    const path = res.ok ? res.value.config?.task?.path : undefined;
    if (!res.ok || !path) continue;
    const folder = basename(path);
    const name = res.value.task_name;
    if (folder === name) continue;
    const had = names.get(folder);
    names.set(folder, had === undefined || had === name ? name : null);
  }
  return new Map(
    [...names].flatMap(([folder, name]) => (name === null ? [] : [[folder, name] as const])),
  );
}

export async function* readHarborJob(
  dir: string,
  options: IngestOptions,
): AsyncGenerator<IngestItem> {
  const job = await readJsonAs(join(dir, "result.json"), HarborJobResult, "a Harbor job result");
  if (!job.ok) yield { type: "error", error: job.error };
  const trials = await trialDirs(dir);
  const taskNames = await taskNamesByFolder(trials);
  for (const trial of trials) {
    if (options.signal?.aborted) return;
    yield* readHarborTrial(trial, options, taskNames);
  }
}

export const harborJobImporter: Importer = {
  format: "harbor-job",
  detect: (path, _head, isDirectory) => isDirectory && looksLikeJob(path),
  read: (path, options) => readHarborJob(path, options),
};
