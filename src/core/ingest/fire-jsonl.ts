import { InputError, jsonErrorReason } from "../errors.js";
import { Attempt, type AttemptInput } from "../model/attempt.js";
import { validate } from "./json-file.js";
import { NUL_LINE } from "./jsonl.js";
import { readLines } from "./lines.js";
import type { Importer, IngestItem, IngestOptions } from "./types.js";

/**
 * One line of fire JSONL: the normalized attempt, `id` and `source` first so
 * a reader can recognise the format from the first bytes of a file.
 */
export function serializeAttempt(a: Attempt | AttemptInput): string {
  const { id, source, ...rest } = a;
  return JSON.stringify({ id, source: { format: source.format, path: source.path }, ...rest });
}

/**
 * The opening of a fire record with any JSON spacing: `{"id": …, "source": {"format": "`.
 * Used only when the first line is longer than the head read for detection.
 */
const FIRE_JSONL_OPENING =
  /^\s*\{\s*"id"\s*:\s*"(?:[^"\\]|\\.)*"\s*,\s*"source"\s*:\s*\{\s*"format"\s*:\s*"/;

/**
 * Content detection, whatever serializer wrote the file: the first line parses as an object
 * with a string `id` and a `source` object naming its `format`. A first line cut off by the
 * detection head falls back to recognising the record's opening.
 */
export function looksLikeFireJsonl(head: string): boolean {
  const text = head.trimStart();
  const nl = text.indexOf("\n");
  if (nl === -1) return FIRE_JSONL_OPENING.test(text) || isFireRecord(text);
  return isFireRecord(text.slice(0, nl));
}

function isFireRecord(line: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return false;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { id, source } = value as { id?: unknown; source?: unknown };
  if (typeof id !== "string" || typeof source !== "object" || source === null) return false;
  return typeof (source as { format?: unknown }).format === "string";
}

/** fire's own JSONL: one normalized attempt per line, each validated by the Attempt schema. */
export const fireJsonlImporter: Importer = {
  format: "fire-jsonl",
  detect: (_path, head, isDirectory) => !isDirectory && looksLikeFireJsonl(head),
  async *read(path: string, options: IngestOptions): AsyncIterable<IngestItem> {
    try {
      for await (const item of readLines(path, { signal: options.signal })) {
        if (item.type === "too-long") {
          yield {
            type: "error",
            error: new InputError(path, item.line, `line too long (${item.bytes} bytes)`),
          };
          continue;
        }
        if (item.text.includes("\0")) {
          yield { type: "error", error: new InputError(path, item.line, NUL_LINE) };
          continue;
        }
        let value: unknown;
        try {
          value = JSON.parse(item.text);
        } catch (err) {
          yield { type: "error", error: new InputError(path, item.line, jsonErrorReason(err)) };
          continue;
        }
        const r = validate(path, value, Attempt, "a fire attempt record", item.line);
        if (r.ok) yield { type: "attempt", attempt: r.value, validated: true };
        else yield { type: "error", error: r.error };
      }
    } catch (err) {
      yield {
        type: "error",
        error: new InputError(path, undefined, `unreadable: ${(err as Error).message}`),
      };
    }
  },
};
