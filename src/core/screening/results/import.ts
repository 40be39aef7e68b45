import { readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { InputError } from "../../errors.js";
import type { Attempt } from "../../model/attempt.js";
import { screenPaths } from "../paths.js";
import { type AttemptTags, rowsFromAttempts } from "./from-attempts.js";
import { parseResultsTable } from "./parse-table.js";
import { mergeRows, readResults, writeResults } from "./results-file.js";
import type { ScreenRow } from "./row.js";

export interface ImportOptions extends AttemptTags {
  /** Loads attempts from a directory (the workspace loader); injected so core stays testable. */
  loadAttempts?: (dir: string) => Promise<{ attempts: Attempt[]; errors: InputError[] }>;
  signal?: AbortSignal;
}

export interface ImportResult {
  added: number;
  replaced: number;
  /** Rows stored after the import. */
  total: number;
  /** Rows read from the input in this import. */
  read: number;
  unscorable: number;
  errors: InputError[];
  resultsFile: string;
}

/** Reads rows from a results table (CSV/JSONL file) or from a directory of Harbor trials. */
export async function readImportRows(
  input: string,
  opts: ImportOptions,
): Promise<{ rows: ScreenRow[]; errors: InputError[] }> {
  const path = resolve(input);
  let isDir: boolean;
  try {
    isDir = (await stat(path)).isDirectory();
  } catch (err) {
    return { rows: [], errors: [new InputError(input, undefined, (err as Error).message)] };
  }
  if (!isDir) {
    const parsed = parseResultsTable(await readFile(path, "utf8"), input);
    const rows = parsed.rows.map((r) => {
      const cohort = r.cohort ?? opts.cohortOf?.(r.task);
      return {
        ...r,
        ...(opts.arm ? { arm: opts.arm } : {}),
        ...(opts.replicate !== undefined && r.replicate === undefined
          ? { replicate: opts.replicate }
          : {}),
        ...(cohort ? { cohort } : {}),
      };
    });
    return { rows, errors: parsed.errors };
  }
  if (!opts.loadAttempts) {
    return {
      rows: [],
      errors: [new InputError(input, undefined, "directory import needs a trace loader")],
    };
  }
  const loaded = await opts.loadAttempts(path);
  const errors = [...loaded.errors];
  const rows = rowsFromAttempts(loaded.attempts, opts, errors);
  if (rows.length === 0 && errors.length === 0) {
    errors.push(
      new InputError(input, undefined, "no attempts found (expected Harbor job or trial dirs)"),
    );
  }
  return { rows, errors };
}

/**
 * `fire screen import`: validates every row (bad rows are reported, good rows load),
 * merges them into `screens/<name>/results.jsonl` (a cell re-imported replaces the old
 * row) and writes the file atomically.
 */
export async function importScreenResults(
  workspace: string,
  name: string,
  input: string,
  opts: ImportOptions = {},
): Promise<ImportResult> {
  const paths = screenPaths(workspace, name);
  const { rows, errors } = await readImportRows(input, opts);
  opts.signal?.throwIfAborted();
  const stored = await readResults(paths.results);
  if (stored.errors.length) {
    // Rewriting would drop the unreadable lines: refuse rather than lose anything.
    throw stored.errors[0] as InputError;
  }
  const merged = mergeRows(stored.rows, rows);
  if (rows.length) await writeResults(paths.results, merged.rows);
  return {
    added: merged.added,
    replaced: merged.replaced,
    total: merged.rows.length,
    read: rows.length,
    unscorable: rows.filter((r) => r.unscorable).length,
    errors: [...stored.errors, ...errors],
    resultsFile: paths.results,
  };
}
