import { InputError } from "../../core/errors.js";

/** One line for an error: `file:line: reason` for input errors, the message otherwise. */
export function errorLine(err: unknown): string {
  if (err instanceof InputError) return err.format();
  if (err instanceof Error) return err.message.split("\n")[0] ?? String(err);
  return String(err);
}

/** True for an AbortController abort (whatever the thrower wrapped it in). */
export function isAbort(err: unknown, signal: AbortSignal): boolean {
  return signal.aborted || (err instanceof Error && err.name === "AbortError");
}

/** An input error where the file is already named (the editor's header): reason (line N). */
export function reasonText(e: { message: string; line?: number | undefined }): string {
  return `${e.message}${e.line === undefined ? "" : ` (line ${e.line})`}`;
}
