import type { z } from "zod";
import { describeZodIssues, InputError, jsonErrorReason } from "./errors.js";

/** One good line of a JSON-lines text: its validated value and 1-based line number. */
export interface JsonLine<T> {
  value: T;
  line: number;
}

export interface JsonLines<T> {
  rows: JsonLine<T>[];
  /** One per bad line (file:line: reason); the good lines around it still load. */
  errors: InputError[];
}

/**
 * Parses JSON-lines text, one value a line, each through `schema`; blank lines are skipped.
 * `what` prefixes schema errors (e.g. "bad hook-log entry").
 */
export function parseJsonLines<S extends z.ZodType>(
  text: string,
  file: string,
  schema: S,
  what?: string,
): JsonLines<z.output<S>> {
  const out: JsonLines<z.output<S>> = { rows: [], errors: [] };
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const lineText = lines[i]!;
    if (!lineText.trim()) continue;
    let raw: unknown;
    try {
      raw = JSON.parse(lineText);
    } catch (err) {
      out.errors.push(new InputError(file, i + 1, jsonErrorReason(err)));
      continue;
    }
    const r = schema.safeParse(raw);
    if (r.success) out.rows.push({ value: r.data, line: i + 1 });
    else {
      const issues = describeZodIssues(r.error.issues);
      out.errors.push(new InputError(file, i + 1, what ? `${what}: ${issues}` : issues));
    }
  }
  return out;
}
