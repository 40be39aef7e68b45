import { describeZodIssues, InputError, jsonErrorReason } from "../errors.js";
import { ioReason } from "./json-file.js";
import { readLines } from "./lines.js";

/** The reason given for a line holding NUL bytes. */
export const NUL_LINE = "line holds NUL bytes (a crash artefact or a zero-filled tail), skipped";

export type JsonlRow = Record<string, unknown>;
type Issues = ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>;

export type RowItem =
  | {
      type: "row";
      row: JsonlRow;
      line: number;
      /** An error item for this line: "expected <what>: <issues>". */
      invalid(what: string, issues: Issues): { type: "error"; error: InputError };
    }
  | { type: "error"; error: InputError };

/**
 * Stream the JSON-object rows of a JSONL file. A line that is not JSON, not an
 * object, or too long becomes one error item naming file:line; the rest still load.
 */
export async function* streamRows(path: string, signal?: AbortSignal): AsyncGenerator<RowItem> {
  const fail = (line: number | undefined, msg: string) => ({
    type: "error" as const,
    error: new InputError(path, line, msg),
  });
  try {
    for await (const item of readLines(path, { signal })) {
      if (item.type === "too-long") {
        yield fail(item.line, `line too long (${item.bytes} bytes; limit 32 MiB), skipped`);
        continue;
      }
      if (item.text.includes("\0")) {
        yield fail(item.line, NUL_LINE);
        continue;
      }
      let row: unknown;
      try {
        row = JSON.parse(item.text);
      } catch (err) {
        yield fail(item.line, jsonErrorReason(err));
        continue;
      }
      if (!row || typeof row !== "object" || Array.isArray(row)) {
        yield fail(item.line, "expected a JSON object on this line");
        continue;
      }
      const line = item.line;
      yield {
        type: "row",
        row: row as JsonlRow,
        line,
        invalid: (what, issues) => fail(line, `expected ${what}: ${describeZodIssues(issues)}`),
      };
    }
  } catch (err) {
    if (signal?.aborted) throw err;
    yield fail(undefined, ioReason(err));
  }
}
