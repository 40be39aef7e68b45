import { DomainError, InvalidFieldError } from "../../errors.js";
import { shellQuote } from "../../shell-quote.js";

/**
 * Fills `{name}` placeholders with shell-quoted values; `{name!}` inserts the value raw
 * (for pre-quoted flag lists). An unknown placeholder is a usage error naming the known ones.
 */
export function fillTemplate(template: string, vars: Record<string, string>): string {
  return template.replace(/\{([A-Za-z][A-Za-z0-9_]*)(!?)\}/g, (_m, key: string, raw: string) => {
    const v = vars[key];
    if (v === undefined) {
      throw new DomainError(
        "invalid",
        `unknown placeholder {${key}} in the command template (known: ${Object.keys(vars)
          .sort()
          .map((k) => `{${k}}`)
          .join(", ")})`,
      );
    }
    return raw ? v : shellQuote(v);
  });
}

/** `key=value` pairs (the CLI's repeated `--var` options). */
export function parseVars(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs) {
    const i = p.indexOf("=");
    if (i <= 0) throw new InvalidFieldError("vars", "a variable", `expects key=value, got "${p}"`);
    out[p.slice(0, i)] = p.slice(i + 1);
  }
  return out;
}
