import { printable } from "../../core/printable.js";

/** Writes human-readable output: trace text never reaches the terminal as control codes. */
export function print(text: string): void {
  process.stdout.write(printable(text));
}

/** Prints a value as JSON on stdout (one document). */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
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
