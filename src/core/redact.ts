/**
 * Secret redaction: pure, synchronous, idempotent. Every text that leaves the machine
 * (LLM prompts) or is stored (LLM answers in the cache, hook logs, reports) passes through
 * `redactSecrets` first. Each secret is replaced by a marker naming its kind, e.g.
 * `[REDACTED:openai-key]`, so the reader still sees that something was there.
 *
 * The rule table (`SECRET_RULES`, in ./secret-rules.ts) follows the shapes of the maintained
 * gitleaks and secretlint rule sets (provider token prefixes, credential flags of common
 * CLIs, connection strings, headers); the tests check every shape and cross-check the table
 * against secretlint's recommended preset.
 */
import { SECRET_RULES, type SecretKind } from "./secret-rules.js";

export type { SecretKind } from "./secret-rules.js";

export interface RedactionResult {
  text: string;
  /** How many secrets of each kind were replaced. */
  counts: Partial<Record<SecretKind, number>>;
}

export function redactionMarker(kind: SecretKind): string {
  return `[REDACTED:${kind}]`;
}

/** Replace every secret in `text` with a marker; report what was found. */
export function redactSecrets(text: string): RedactionResult {
  const counts: Partial<Record<SecretKind, number>> = {};
  // one scan for any rule's keyword: most text (trace outputs, commands) has none
  if (!anyKeyword().test(text)) return { text, counts };
  let out = text;
  let lower = text.toLowerCase();
  for (const rule of SECRET_RULES) {
    if (!rule.keywords.some((k) => lower.includes(k))) continue;
    const before = out;
    out = out.replace(rule.pattern, (match: string, ...rest: unknown[]) => {
      const end = rest.findIndex((g) => typeof g === "number");
      if (rule.prose && isProse(match, rest[end] as number, rest[end + 1] as string)) return match;
      const groups = rest.slice(0, end).map((g) => (typeof g === "string" ? g : ""));
      const marker = redactionMarker(rule.kind);
      const replaced = rule.replace ? rule.replace(marker, match, ...groups) : marker;
      if (replaced !== match) counts[rule.kind] = (counts[rule.kind] ?? 0) + 1;
      return replaced;
    });
    if (out !== before) lower = out.toLowerCase();
  }
  return { text: out, counts };
}

let keywordRe: RegExp | undefined;
/** Every rule's keywords in one case-insensitive alternation (built on first use). */
function anyKeyword(): RegExp {
  keywordRe ??= new RegExp(
    [...new Set(SECRET_RULES.flatMap((r) => r.keywords))]
      .map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join("|"),
    "i",
  );
  return keywordRe;
}

/** `name: Word` followed by another word: a message such as `token: Invalid input`. */
function isProse(match: string, offset: number, whole: string): boolean {
  if (!/:\s*[A-Za-z]+$/.test(match)) return false;
  const next = offset + match.length;
  // the next word is letters only too (a credential after a scheme word has digits)
  return /^[ \t][A-Za-z]+(?:[\s.,;:!?)]|$)/.test(whole.slice(next, next + 64));
}

/** Shorthand when only the text matters. */
export function redact(text: string): string {
  return redactSecrets(text).text;
}

/**
 * Redacts every string inside a JSON-like value (objects, arrays), keeping its shape:
 * for LLM answers before they are cached or printed.
 */
export function redactDeep<T>(value: T): T {
  if (typeof value === "string") return redact(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v)) as T;
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactDeep(v);
    return out as T;
  }
  return value;
}
