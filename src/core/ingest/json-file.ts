import { readFileSync } from "node:fs";
import type { z } from "zod";
import { describeZodIssues, InputError, parseJsonText } from "../errors.js";

export type Loaded<T> = { ok: true; value: T } | { ok: false; error: InputError };

/** Why a file could not be read, in words (no stack). */
export function ioReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  switch (code) {
    case "EISDIR":
      return "unreadable: expected a file, found a directory";
    case "EACCES":
    case "EPERM":
      return "unreadable: permission denied";
    case "ENOENT":
      return "unreadable: file not found";
    case "ELOOP":
      return "symlink loop";
    default:
      return `unreadable: ${code ?? (err instanceof Error ? err.message : String(err))}`;
  }
}

/**
 * Read and parse a whole JSON file (JSON documents are small enough; JSONL streams).
 * One synchronous read: it costs a quarter of the promise-based `readFile` (open,
 * fstat, read, close as four thread-pool round trips), and units are read in parse
 * workers or in small workspaces, where a blocked event loop costs nothing.
 */
export async function readJsonFile(file: string): Promise<Loaded<unknown>> {
  return readJsonFileSync(file);
}

/** `readJsonFile` for readers that are synchronous themselves. */
export function readJsonFileSync(file: string): Loaded<unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    return { ok: false, error: new InputError(file, undefined, ioReason(err)) };
  }
  if (!text.trim()) return { ok: false, error: new InputError(file, undefined, "empty file") };
  return parseJsonLoaded(file, text);
}

/** errors.ts parseJsonText as a Loaded result: a syntax error names file:line. */
export function parseJsonLoaded(file: string, text: string): Loaded<unknown> {
  try {
    return { ok: true, value: parseJsonText(text, file) };
  } catch (err) {
    if (err instanceof InputError) return { ok: false, error: err };
    throw err;
  }
}

/** Read, parse and validate a JSON file against a zod schema. */
export async function readJsonAs<S extends z.ZodType>(
  file: string,
  schema: S,
  what: string,
): Promise<Loaded<z.infer<S>>> {
  const loaded = await readJsonFile(file);
  if (!loaded.ok) return loaded;
  return validate(file, loaded.value, schema, what);
}

/** `readJsonAs` for readers that are synchronous themselves. */
export function readJsonAsSync<S extends z.ZodType>(
  file: string,
  schema: S,
  what: string,
): Loaded<z.infer<S>> {
  const loaded = readJsonFileSync(file);
  if (!loaded.ok) return loaded;
  return validate(file, loaded.value, schema, what);
}

/** Validate a parsed value; the error says what was expected and which fields failed. */
export function validate<S extends z.ZodType>(
  file: string,
  value: unknown,
  schema: S,
  what: string,
  line?: number,
): Loaded<z.infer<S>> {
  const r = schema.safeParse(value);
  if (r.success) return { ok: true, value: r.data };
  return {
    ok: false,
    error: new InputError(file, line, `expected ${what}: ${describeZodIssues(r.error.issues)}`),
  };
}
