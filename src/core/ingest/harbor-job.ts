import { join } from "node:path";
import { isDir, isFile, peek, subdirs } from "./fs-util.js";
import { looksLikeTrial, readHarborTrial } from "./harbor.js";
import { HarborJobResult } from "./harbor-schema.js";
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

export async function* readHarborJob(
  dir: string,
  options: IngestOptions,
): AsyncGenerator<IngestItem> {
  const job = await readJsonAs(join(dir, "result.json"), HarborJobResult, "a Harbor job result");
  if (!job.ok) yield { type: "error", error: job.error };
  for (const trial of await trialDirs(dir)) {
    if (options.signal?.aborted) return;
    yield* readHarborTrial(trial, options);
  }
}

export const harborJobImporter: Importer = {
  format: "harbor-job",
  detect: (path, _head, isDirectory) => isDirectory && looksLikeJob(path),
  read: (path, options) => readHarborJob(path, options),
};
