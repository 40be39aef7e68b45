import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { discoverUnits, type SourceUnit } from "../../../src/core/ingest/discover.js";
import { readUnit } from "../../../src/core/ingest/registry.js";
import {
  DEFAULT_INGEST_OPTIONS,
  type Importer,
  type IngestOptions,
} from "../../../src/core/ingest/types.js";
import { Attempt } from "../../../src/core/model/attempt.js";

export interface Collected {
  units: SourceUnit[];
  attempts: Attempt[];
  /** `file:line: reason` strings, discovery and read errors together. */
  errors: string[];
}

/** Discover and read everything under `paths`, validating every attempt with the Attempt schema. */
export async function collect(
  paths: string[],
  options: Partial<IngestOptions> = {},
): Promise<Collected> {
  const opts = { ...DEFAULT_INGEST_OPTIONS, ...options };
  const out: Collected = { units: [], attempts: [], errors: [] };
  for await (const item of discoverUnits(paths)) {
    if (item.type === "error") {
      out.errors.push(item.error.format());
      continue;
    }
    out.units.push(item.unit);
    for await (const x of readUnit(item.unit, opts)) {
      if (x.type === "error") out.errors.push(x.error.format());
      else out.attempts.push(Attempt.parse(x.attempt));
    }
  }
  return out;
}

/** The one attempt under `path`, read with no error (a test of a single real trial). */
export async function collectOne(
  path: string,
  options: Partial<IngestOptions> = {},
): Promise<Attempt> {
  const got = await collect([path], options);
  if (got.errors.length > 0) throw new Error(`errors reading ${path}: ${got.errors.join("; ")}`);
  if (got.attempts.length !== 1) throw new Error(`${got.attempts.length} attempts under ${path}`);
  return got.attempts[0] as Attempt;
}

export const byTask = (attempts: Attempt[], taskId: string): Attempt =>
  attempts.find((a) => a.taskId === taskId) ?? (undefined as never);

/** Attempts by their trial folder's name, with a lookup that fails loudly for a missing one. */
export function byTrialFolder(attempts: readonly Attempt[]): (trial: string) => Attempt {
  const byTrial = new Map(attempts.map((a) => [a.source.path.split("/").at(-1) ?? "", a]));
  return (trial) => {
    const a = byTrial.get(trial);
    if (!a) throw new Error(`no attempt for ${trial}`);
    return a;
  };
}

/**
 * Renames the trajectory of `instance` in `<dir>/trajs/` to `name`, gives the instance a
 * `logs/<instance>/report.json`, and returns the importer's stamp of the renamed file before and
 * after that report changes: a stamp that follows the instance the file names differs.
 */
export function stampsAroundReportChange(
  importer: Importer,
  dir: string,
  instance: string,
  name: string,
): { before: string | undefined; after: string | undefined } {
  const file = join(dir, "trajs", name);
  renameSync(join(dir, "trajs", `${instance}.json`), file);
  const logs = join(dir, "logs", instance);
  mkdirSync(logs, { recursive: true });
  const report = join(logs, "report.json");
  writeFileSync(report, JSON.stringify({ [instance]: { resolved: false } }));
  const before = importer.outsideStamp?.(file);
  writeFileSync(report, JSON.stringify({ [instance]: { resolved: true, regraded: 1 } }));
  return { before, after: importer.outsideStamp?.(file) };
}
