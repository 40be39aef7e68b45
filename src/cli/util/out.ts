import { printable } from "../../core/printable.js";
import type { StoredText } from "../../core/workspace/stamped-cache.js";

/** Writes human-readable output: trace text never reaches the terminal as control codes. */
export function print(text: string): void {
  process.stdout.write(printable(text));
}

/**
 * Writes warnings, progress and errors on stderr: trace text (task ids, messages) never
 * reaches the terminal as control codes there either. A front end's own cursor moves
 * (`\r`, erase line) are written apart, with `process.stderr.write`.
 */
export function printErr(text: string): void {
  process.stderr.write(printable(text));
}

/**
 * C1 controls and bidi controls, which JSON.stringify leaves raw (it escapes only C0): as
 * `\uXXXX` escapes the document parses to the same value and shows nothing to a terminal.
 */
const JSON_RAW = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Prints a value as JSON on stdout (one document), every control character escaped. */
export function printJson(value: unknown): void {
  process.stdout.write(jsonText(value));
}

/** What `printJson` writes for a value. */
export function jsonText(value: unknown): string {
  const text = JSON.stringify(value, null, 2).replace(
    JSON_RAW,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return `${text}\n`;
}

/**
 * Writes output this CLI made printable earlier (`printable`, `jsonText`) and kept as it was
 * (as text, or as its UTF-8 bytes read back from a cache).
 */
export async function printKept(out: {
  stdout: string | StoredText;
  stderr: string;
}): Promise<void> {
  if (out.stderr) process.stderr.write(out.stderr);
  if (typeof out.stdout === "string") {
    if (out.stdout) process.stdout.write(out.stdout);
    return;
  }
  // a kept text comes in chunks of one reused buffer: each is written out before the next
  try {
    for (const chunk of out.stdout.chunks())
      await new Promise<void>((done, fail) =>
        process.stdout.write(chunk, (err) => (err ? fail(err) : done())),
      );
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EPIPE") return; // the reader left (`| head`)
    throw err;
  }
}

/**
 * A command's result, the one way every command prints one: with `--json` the value as one
 * JSON document, else the human text (made printable). Warnings and progress go to stderr
 * either way, so stdout stays one JSON document.
 */
export function printResult(json: boolean | undefined, value: unknown, human: () => string): void {
  if (json) printJson(value);
  else print(human());
}
