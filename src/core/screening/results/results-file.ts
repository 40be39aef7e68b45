import { mkdir, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import writeFileAtomic from "write-file-atomic";
import type { InputError } from "../../errors.js";
import { parseJsonLines } from "../../jsonl.js";
import { rowKey, ScreenRow } from "./row.js";

export interface StoredRows {
  rows: ScreenRow[];
  errors: InputError[];
}

/** Reads `results.jsonl` (missing file = no rows); bad lines become errors. */
export async function readResults(file: string): Promise<StoredRows> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { rows: [], errors: [] };
    throw err;
  }
  const r = parseJsonLines(text, file, ScreenRow);
  return { rows: r.rows.map((x) => x.value), errors: r.errors };
}

export interface MergeResult {
  rows: ScreenRow[];
  added: number;
  replaced: number;
}

/** New rows replace stored rows of the same cell (task, arm, replicate, attempt). */
export function mergeRows(
  existing: readonly ScreenRow[],
  incoming: readonly ScreenRow[],
): MergeResult {
  const map = new Map(existing.map((r) => [rowKey(r), r]));
  let added = 0;
  let replaced = 0;
  for (const r of incoming) {
    const k = rowKey(r);
    if (map.has(k)) replaced++;
    else added++;
    map.set(k, r);
  }
  return { rows: [...map.values()], added, replaced };
}

/** Writes every row atomically (temp file + rename). */
export async function writeResults(file: string, rows: readonly ScreenRow[]): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const text = rows.map((r) => JSON.stringify(r)).join("\n");
  await writeFileAtomic(file, rows.length ? `${text}\n` : "");
}

/** Serialises result merges during a run: each completed attempt is stored at once. */
export class ResultsWriter {
  private chain: Promise<void> = Promise.resolve();
  constructor(private readonly file: string) {}

  add(rows: readonly ScreenRow[]): Promise<void> {
    this.chain = this.chain.then(async () => {
      const stored = await readResults(this.file);
      if (stored.errors.length) throw stored.errors[0] as InputError;
      await writeResults(this.file, mergeRows(stored.rows, rows).rows);
    });
    return this.chain;
  }
}
