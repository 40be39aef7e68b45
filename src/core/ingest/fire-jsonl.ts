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

/** Content detection: the first record starts with `{"id":…,"source":{"format":`. */
export const FIRE_JSONL_HEAD = /^\s*\{"id":"(?:[^"\\]|\\.)*","source":\{"format":"/;

/** fire's own JSONL: one normalized attempt per line, each validated by the Attempt schema. */
export const fireJsonlImporter: Importer = {
  format: "fire-jsonl",
  detect: (_path, head, isDirectory) => !isDirectory && FIRE_JSONL_HEAD.test(head),
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
        if (r.ok) yield { type: "attempt", attempt: r.value };
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
