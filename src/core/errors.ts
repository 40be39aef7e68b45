/**
 * A problem with input from outside: names the file, the line (1-based, when the
 * format has lines) and what was expected. Never carries a stack to the user.
 */
export class InputError extends Error {
  readonly file: string;
  readonly line: number | undefined;

  constructor(file: string, line: number | undefined, message: string) {
    super(message);
    this.name = "InputError";
    this.file = file;
    this.line = line;
  }

  /** `file:line: reason` (or `file: reason` without a line). */
  format(): string {
    return `${this.file}${this.line === undefined ? "" : `:${this.line}`}: ${this.message}`;
  }

  toJSON(): { file: string; line: number | null; message: string } {
    return { file: this.file, line: this.line ?? null, message: this.message };
  }
}

/** A wrong command line: the CLI exits 2 on these. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** Human-readable summary of a zod issue list, naming the path of each field. */
export function describeZodIssues(
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>,
): string {
  return issues
    .slice(0, 5)
    .map((i) => (i.path.length ? `${i.path.map(String).join(".")}: ${i.message}` : i.message))
    .join("; ");
}
