import { printable } from "../../core/printable.js";

/** Writes human-readable output: trace text never reaches the terminal as control codes. */
export function print(text: string): void {
  process.stdout.write(printable(text));
}
