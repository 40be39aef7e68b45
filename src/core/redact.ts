/**
 * Secret redaction: pure, synchronous, idempotent. Every text that leaves the machine
 * (LLM prompts) or lands in a cache/report passes through `redactSecrets` first.
 * Each secret is replaced by a marker naming its kind, e.g. `[REDACTED:openai-key]`,
 * so the reader still sees that something was there without learning what.
 */

export type SecretKind =
  | "private-key"
  | "url-credentials"
  | "openai-key"
  | "anthropic-key"
  | "github-token"
  | "aws-access-key"
  | "slack-token"
  | "bearer-token"
  | "assigned-secret";

export interface RedactionResult {
  text: string;
  /** How many secrets of each kind were replaced. */
  counts: Partial<Record<SecretKind, number>>;
}

export function redactionMarker(kind: SecretKind): string {
  return `[REDACTED:${kind}]`;
}

/** Words that make a `KEY=value` / `"key": "value"` pair a secret. */
const SECRET_NAME =
  "[A-Za-z0-9_.-]{0,40}(?:pass(?:word|wd)?|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?|authorization|auth[_-]?token)[A-Za-z0-9_.-]{0,40}";

/** Values that are never secrets: numbers, booleans, placeholders, variable references. */
function isPlainValue(value: string): boolean {
  return (
    value.startsWith("[REDACTED") ||
    value.startsWith("$") ||
    /^(?:\d+(?:\.\d+)?|true|false|null|none|undefined|bearer|basic|token|\*+|<[^>]*>)$/i.test(value)
  );
}

interface Rule {
  kind: SecretKind;
  pattern: RegExp;
  /** Replacement; default replaces the whole match with the marker. */
  replace?: (match: string, ...groups: string[]) => string;
}

/** Order matters: specific formats first, then generic assignments. */
const RULES: readonly Rule[] = [
  {
    kind: "private-key",
    pattern:
      /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END \1PRIVATE KEY\2-----|$)/g,
  },
  {
    // scheme://user:password@host → scheme://[REDACTED]@host
    kind: "url-credentials",
    pattern: /\b([a-z][a-z0-9+.-]{0,30}:\/\/)([^\s/:@'"`<>]{1,256}):([^\s/@'"`<>]{1,256})@/gi,
    replace: (_m, scheme) => `${scheme}${redactionMarker("url-credentials")}@`,
  },
  { kind: "anthropic-key", pattern: /\bsk-ant-[A-Za-z0-9_-]{16,}/g },
  { kind: "openai-key", pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  {
    kind: "github-token",
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})/g,
  },
  { kind: "aws-access-key", pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g },
  { kind: "slack-token", pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  {
    kind: "bearer-token",
    pattern: /\b(Bearer|Basic|Token)\s+([A-Za-z0-9._~+/=-]{8,})/g,
    replace: (_m, scheme, value) =>
      value.startsWith("[REDACTED") ? _m : `${scheme} ${redactionMarker("bearer-token")}`,
  },
  {
    // JSON pairs: "api_key": "value"
    kind: "assigned-secret",
    pattern: new RegExp(String.raw`("${SECRET_NAME}"\s*:\s*)"((?:[^"\\]|\\.)*)"`, "gi"),
    replace: (m, prefix, value) =>
      value === "" || isPlainValue(value) ? m : `${prefix}"${redactionMarker("assigned-secret")}"`,
  },
  {
    // KEY=value, key: value, --password value (shell, env files, YAML)
    kind: "assigned-secret",
    pattern: new RegExp(
      String.raw`(\b${SECRET_NAME}\b['"]?\s*(?:=|:(?!//))\s*)(['"]?)([^\s'"\`,;&|}\])]{4,})\2`,
      "gi",
    ),
    replace: (m, prefix, quote, value) =>
      isPlainValue(value) ? m : `${prefix}${quote}${redactionMarker("assigned-secret")}${quote}`,
  },
  {
    kind: "assigned-secret",
    pattern: /(--(?:password|passwd|token|api-key|secret)[= ])(['"]?)([^\s'"]{4,})\2/gi,
    replace: (m, prefix, quote, value) =>
      isPlainValue(value) ? m : `${prefix}${quote}${redactionMarker("assigned-secret")}${quote}`,
  },
];

/** Replace every secret in `text` with a marker; report what was found. */
export function redactSecrets(text: string): RedactionResult {
  const counts: Partial<Record<SecretKind, number>> = {};
  let out = text;
  for (const rule of RULES) {
    out = out.replace(rule.pattern, (match: string, ...rest: unknown[]) => {
      const end = rest.findIndex((g) => typeof g === "number");
      const groups = rest.slice(0, end).map((g) => (typeof g === "string" ? g : ""));
      const replaced = rule.replace ? rule.replace(match, ...groups) : redactionMarker(rule.kind);
      if (replaced !== match) counts[rule.kind] = (counts[rule.kind] ?? 0) + 1;
      return replaced;
    });
  }
  return { text: out, counts };
}

/** Shorthand when only the text matters. */
export function redact(text: string): string {
  return redactSecrets(text).text;
}
