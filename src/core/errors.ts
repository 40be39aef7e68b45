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

/** 1-based line of a character offset in a text. */
export function lineAtOffset(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** Short, single-line reason from a JSON.parse error: "invalid JSON: …". */
export function jsonErrorReason(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return `invalid JSON: ${msg.split("\n")[0]!.slice(0, 160)}`;
}

/**
 * Parses one JSON document; a syntax error becomes an InputError naming the file and, where
 * the parser gives a position, the line it is on.
 */
export function parseJsonText(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const msg = err instanceof Error ? err.message : "";
    const pos = /position (\d+)/.exec(msg)?.[1];
    throw new InputError(
      file,
      pos ? lineAtOffset(text, Number(pos)) : lineOfContext(text, msg),
      jsonErrorReason(err),
    );
  }
}

/**
 * The line of a JSON syntax error whose message gives no position (V8 since Node 20 often
 * quotes the text around the error instead: `Unexpected token ',', ..."x": 1},," is not
 * valid JSON`): the end of the text for a cut-off file, else where that quoted context
 * occurs, when it occurs once. Undefined when neither tells.
 */
function lineOfContext(text: string, msg: string): number | undefined {
  if (/Unexpected end of JSON input/.test(msg)) return lineAtOffset(text, text.trimEnd().length);
  const m = /^[^"]*"(\.{3})?([\s\S]*?)(\.{3})?" is not valid JSON/.exec(msg);
  const ctx = m?.[2];
  if (!ctx || ctx.length < 4) return undefined;
  const at = text.indexOf(ctx);
  if (at === -1 || text.indexOf(ctx, at + 1) !== -1) return undefined;
  // V8 quotes up to 10 characters before the error when it cuts the context ("...")
  return lineAtOffset(text, at + (m?.[1] ? Math.min(10, ctx.length - 1) : 0));
}
