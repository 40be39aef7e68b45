import { parse } from "csv-parse/sync";
import { describeZodIssues, InputError } from "../../errors.js";
import { parseJsonLines } from "../../jsonl.js";
import { type ScreenRow, ScreenRowInput } from "./row.js";

export interface ParsedRows {
  rows: ScreenRow[];
  /** One per bad row (file:line: reason); the good rows around it still load. */
  errors: InputError[];
}

/** True when the text looks like JSON lines rather than CSV. */
export function looksLikeJsonl(text: string): boolean {
  return text.trimStart().startsWith("{");
}

function validate(raw: unknown, file: string, line: number, out: ParsedRows): void {
  const r = ScreenRowInput.safeParse(raw);
  if (r.success) out.rows.push({ ...r.data, source: r.data.source ?? `${file}:${line}` });
  else out.errors.push(new InputError(file, line, describeZodIssues(r.error.issues)));
}

/** JSON lines: one object a line; blank lines skipped. */
export function parseResultsJsonl(text: string, file: string): ParsedRows {
  const r = parseJsonLines(text, file, ScreenRowInput);
  return {
    rows: r.rows.map(({ value, line }) => ({
      ...value,
      source: value.source ?? `${file}:${line}`,
    })),
    errors: r.errors,
  };
}

/** CSV with a header row naming the columns; `#` lines are comments. */
export function parseResultsCsv(text: string, file: string): ParsedRows {
  const out: ParsedRows = { rows: [], errors: [] };
  let records: Array<{ record: Record<string, string>; info: { lines: number } }>;
  try {
    records = parse(text, {
      columns: (header: string[]) => header.map((h) => h.trim()),
      info: true,
      skip_empty_lines: true,
      comment: "#",
      trim: true,
      relax_column_count: true,
      bom: true,
    });
  } catch (err) {
    const e = err as Error & { lines?: number };
    out.errors.push(new InputError(file, e.lines, `unreadable CSV: ${e.message}`));
    return out;
  }
  for (const { record, info } of records) validate(record, file, info.lines, out);
  if (records.length === 0 && out.errors.length === 0) {
    out.errors.push(new InputError(file, 1, "no rows (expected a header task,arm,attempt,pass)"));
  }
  return out;
}

/** Parses a results table by content: JSON lines or CSV. */
export function parseResultsTable(text: string, file: string): ParsedRows {
  return looksLikeJsonl(text) ? parseResultsJsonl(text, file) : parseResultsCsv(text, file);
}
