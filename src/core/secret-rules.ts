/**
 * The credential shapes fire redacts, as data: one row per shape, specific formats first,
 * generic assignments last. Shapes follow the gitleaks / secretlint rule sets (token
 * prefixes of the providers, CLI credential flags, headers, connection strings).
 * Every pattern is bounded (no nested quantifiers), so a hostile trace cannot make
 * redaction backtrack.
 */

export type SecretKind =
  | "private-key"
  | "url-credentials"
  | "openai-key"
  | "anthropic-key"
  | "github-token"
  | "gitlab-token"
  | "aws-access-key"
  | "slack-token"
  | "slack-webhook"
  | "stripe-key"
  | "google-api-key"
  | "google-oauth-token"
  | "jwt"
  | "azure-storage-key"
  | "azure-sas"
  | "npm-token"
  | "pypi-token"
  | "huggingface-token"
  | "sendgrid-key"
  | "twilio-key"
  | "shopify-token"
  | "digitalocean-token"
  | "telegram-token"
  | "age-key"
  | "cookie"
  | "cli-password"
  | "basic-auth"
  | "bearer-token"
  | "assigned-secret";

export interface SecretRule {
  kind: SecretKind;
  pattern: RegExp;
  /**
   * Lower-case strings of which at least one occurs (case-insensitively) in every text the
   * pattern can match — gitleaks' "keywords": a rule whose keywords are all absent is skipped
   * without running its pattern, so a plain command costs a few `includes` calls instead of
   * compiling and running every pattern (the hook redacts each command it logs).
   */
  keywords: readonly string[];
  /**
   * Keeps a `name: Word more words` match: a colon, then one word of letters that prose goes
   * on after (`token: Invalid input`, a validation message), is a sentence, not a setting.
   */
  prose?: boolean;
  /** Builds the replacement from the marker, the match and its groups; default: marker. */
  replace?: (marker: string, match: string, ...groups: string[]) => string;
  /**
   * For a pattern that would try every word start (a name of up to 40 characters before the
   * keyword): every match holds a match of `anchor` (sticky) that starts at one of the rule's
   * keywords at most `reach` characters after the match's start. Redaction then tries the
   * pattern only in front of such anchors, which finds the very same matches (the tests check
   * the claim against strings generated from the pattern).
   */
  near?: { anchor: RegExp; reach: number };
}

/**
 * Names that make a `KEY=value` / `"key": "value"` pair a secret: any prefix (DB_PASSWORD,
 * github_token), only a short value-like suffix (token_value, passwords), so names that merely
 * contain the word (token_limit_exceeded, secretName, max_tokens) are not taken for secrets.
 */
const SECRET_NAME =
  "[A-Za-z0-9_.-]{0,40}(?:pass(?:word|wd|phrase)?|secret|token|api[_-]?key|apikey|access[_-]?key|account[_-]?key|private[_-]?key|client[_-]?secret|credentials?|authorization|auth[_-]?token|session[_-]?id)(?:[_.-]?(?:key|value|data|b64|base64))?s?";

/** Every text SECRET_NAME matches holds one of these (its alternatives' cores, lower case). */
const SECRET_NAME_KEYWORDS = [
  "pass",
  "secret",
  "token",
  "api",
  "access",
  "account",
  "private",
  "credential",
  "authorization",
  "session",
] as const;

/**
 * What follows one of SECRET_NAME_KEYWORDS in every assignment the SECRET_NAME rules match:
 * the rest of the name (at most 6 characters after the keyword, `phrase` after `pass`, and a
 * suffix of at most 8, `_base64s`), an optional quote, blanks, then `=` or `:`. The keyword
 * starts at most 48 characters after the match: a quote, the 40-character prefix and the 7
 * characters of `client_` before `secret`.
 */
const SECRET_NAME_NEAR = {
  anchor: new RegExp(
    String.raw`(?:${SECRET_NAME_KEYWORDS.join("|")})[A-Za-z0-9_.-]{0,14}['"]?\s*[=:]`,
    "iy",
  ),
  reach: 48,
};

/** Values that are never secrets: numbers, booleans, placeholders, variable references. */
export function isPlainValue(value: string): boolean {
  return (
    value.startsWith("[REDACTED") ||
    value.startsWith("$") ||
    /^(?:\d{1,12}(?:\.\d+)?|true|false|null|none|undefined|bearer|basic|token|\*+|<[^>]*>|\{\{[^}]*\}\})$/i.test(
      value,
    )
  );
}

/** Keeps `prefix` and the quotes, replaces the value, unless the value is plain. */
function keepPrefix(marker: string, m: string, prefix: string, quote: string, value: string) {
  return value === "" || isPlainValue(value) ? m : `${prefix}${quote}${marker}${quote}`;
}

export const SECRET_RULES: readonly SecretRule[] = [
  {
    kind: "private-key",
    keywords: ["private key"],
    pattern:
      /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END \1PRIVATE KEY\2-----|$)/g,
  },
  { kind: "age-key", keywords: ["age-secret-key-1"], pattern: /\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b/g },
  {
    // scheme://user:password@host → scheme://[REDACTED]@host
    kind: "url-credentials",
    keywords: ["://"],
    pattern: /\b([a-z][a-z0-9+.-]{0,30}:\/\/)([^\s/:@'"`<>]{1,256}):([^\s/@'"`<>]{1,256})@/gi,
    replace: (marker, _m, scheme) => `${scheme}${marker}@`,
  },
  { kind: "anthropic-key", keywords: ["sk-ant-"], pattern: /\bsk-ant-[A-Za-z0-9_-]{16,}/g },
  {
    kind: "stripe-key",
    keywords: ["_live_", "_test_"],
    pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}/g,
  },
  {
    kind: "openai-key",
    keywords: ["sk-"],
    pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g,
  },
  {
    kind: "github-token",
    keywords: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})/g,
  },
  {
    kind: "gitlab-token",
    keywords: ["glpat-", "gldt-", "glrt-", "glptt-"],
    pattern: /\bgl(?:pat|dt|rt|ptt)-[A-Za-z0-9_-]{20,}/g,
  },
  {
    kind: "aws-access-key",
    keywords: ["akia", "asia", "abia", "acca"],
    pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/g,
  },
  { kind: "slack-token", keywords: ["xox"], pattern: /\bxox[abposre]-[A-Za-z0-9-]{10,}/g },
  {
    kind: "slack-webhook",
    keywords: ["hooks.slack.com"],
    pattern: /\bhttps:\/\/hooks\.slack\.com\/(?:services|workflows)\/[A-Za-z0-9/_-]{20,}/g,
  },
  { kind: "google-api-key", keywords: ["aiza"], pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { kind: "google-oauth-token", keywords: ["ya29."], pattern: /\bya29\.[0-9A-Za-z_-]{20,}/g },
  {
    kind: "jwt",
    keywords: ["eyj"],
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  },
  {
    kind: "azure-storage-key",
    keywords: ["accountkey=", "sharedaccesskey="],
    pattern: /\b(AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{20,}={0,2})/g,
    replace: (marker, _m, name) => `${name}=${marker}`,
  },
  {
    kind: "azure-sas",
    keywords: ["sig="],
    pattern: /([?&]sig=)([A-Za-z0-9%+/]{20,}={0,2})/g,
    replace: (marker, _m, prefix) => `${prefix}${marker}`,
  },
  { kind: "npm-token", keywords: ["npm_"], pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: "pypi-token", keywords: ["pypi-age"], pattern: /\bpypi-AgE[A-Za-z0-9_-]{50,}/g },
  { kind: "huggingface-token", keywords: ["hf_"], pattern: /\bhf_[A-Za-z0-9]{30,}\b/g },
  {
    kind: "sendgrid-key",
    keywords: ["sg."],
    pattern: /\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}/g,
  },
  { kind: "twilio-key", keywords: ["sk"], pattern: /\bSK[0-9a-f]{32}\b/g },
  {
    kind: "shopify-token",
    keywords: ["shpat_", "shpca_", "shppa_", "shpss_"],
    pattern: /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b/g,
  },
  {
    kind: "digitalocean-token",
    keywords: ["doo_v1_", "dop_v1_", "dor_v1_"],
    pattern: /\bdo[opr]_v1_[a-f0-9]{64}\b/g,
  },
  { kind: "telegram-token", keywords: [":aa"], pattern: /\d{8,10}:AA[A-Za-z0-9_-]{32,}/g },
  {
    // Cookie / Set-Cookie headers: the whole value up to the end of the line or quote
    kind: "cookie",
    keywords: ["cookie:"],
    pattern: /\b((?:Set-)?Cookie:\s*)([^\r\n"']{1,4096})/gi,
    replace: (marker, m, prefix, value) =>
      value.startsWith("[REDACTED") ? m : `${prefix}${marker}`,
  },
  {
    // curl -u user:password / --user user:password (the user stays visible)
    kind: "basic-auth",
    keywords: ["-u"],
    pattern:
      /((?:^|\s)(?:-u|--user|--proxy-user)[= ]?\s*)((?:\\?['"])?)((?:[^\s:'"\\]|\\[^\s:'"]){1,128}):((?:[^\s'"\\]|\\[^\s'"]){1,256})\2/g,
    replace: (marker, m, prefix, quote, user, pw) =>
      isPlainValue(pw) ? m : `${prefix}${quote}${user}:${marker}${quote}`,
  },
  {
    // mysql / mariadb / mysqldump -pSECRET (password glued to -p)
    kind: "cli-password",
    keywords: ["mysql", "mariadb"],
    pattern:
      /(\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump|mysqlimport)\b[^\n|;&]{0,200}?\s-p)((?:\\?['"])?)((?:[^\s'"\\]|\\[^\s'"]){1,256})\2/g,
    replace: (marker, m, prefix, quote, value) => keepPrefix(marker, m, prefix, quote, value),
  },
  {
    // sshpass -p SECRET, docker/podman/helm login -p SECRET, openssl -pass(in|out) pass:SECRET
    kind: "cli-password",
    keywords: ["sshpass", "login"],
    pattern:
      /(\b(?:sshpass|(?:docker|podman|helm|nerdctl)\s+(?:registry\s+)?login\b[^\n|;&]{0,200}?)\s-p\s+)((?:\\?['"])?)((?:[^\s'"\\]|\\[^\s'"]){1,256})\2/g,
    replace: (marker, m, prefix, quote, value) => keepPrefix(marker, m, prefix, quote, value),
  },
  {
    // openssl … -passin pass:SECRET / -passout pass:SECRET / -pass pass:SECRET
    kind: "cli-password",
    keywords: ["pass:"],
    pattern: /(-pass(?:in|out)?\s+pass:)((?:\\?['"])?)((?:[^\s'"\\]|\\[^\s'"]){1,256})\2/g,
    replace: (marker, m, prefix, quote, value) => keepPrefix(marker, m, prefix, quote, value),
  },
  {
    kind: "bearer-token",
    keywords: ["bearer", "basic", "token", "digest"],
    pattern: /\b(Bearer|Basic|Token|Digest)\s+([A-Za-z0-9._~+/=-]{8,})/g,
    replace: (marker, m, scheme, value) =>
      value.startsWith("[REDACTED") ? m : `${scheme} ${marker}`,
  },
  {
    // JSON pairs: "api_key": "value"
    kind: "assigned-secret",
    keywords: SECRET_NAME_KEYWORDS,
    near: SECRET_NAME_NEAR,
    pattern: new RegExp(String.raw`("${SECRET_NAME}"\s*:\s*)"((?:[^"\\]|\\.){0,4096})"`, "gi"),
    replace: (marker, m, prefix, value) =>
      value === "" || isPlainValue(value) ? m : `${prefix}"${marker}"`,
  },
  {
    // quoted values, spaces allowed: password = "a b", secret: 'x y' (the value on the name's
    // line or, as YAML allows, on the next line indented: prose ending "…the tests pass:"
    // before an unindented line assigns nothing)
    kind: "assigned-secret",
    keywords: SECRET_NAME_KEYWORDS,
    near: SECRET_NAME_NEAR,
    pattern: new RegExp(
      String.raw`(\b${SECRET_NAME}\b[ \t]*(?:=|:(?!//))[ \t]*(?:\r?\n[ \t]+)?)(\\?["'])((?:[^"'\\\r\n]|\\[^"'\r\n]){1,1024})\2`,
      "gi",
    ),
    replace: (marker, m, prefix, quote, value) => keepPrefix(marker, m, prefix, quote, value),
  },
  {
    // KEY=value, key: value, X-Api-Key: value (shell, env files, YAML, headers; the value on
    // the name's line or on the next line indented)
    kind: "assigned-secret",
    keywords: SECRET_NAME_KEYWORDS,
    near: SECRET_NAME_NEAR,
    prose: true,
    pattern: new RegExp(
      String.raw`(\b${SECRET_NAME}\b['"]?[ \t]*(?:=|:(?!//))[ \t]*(?:\r?\n[ \t]+)?)((?:\\?['"])?)((?:[^\s'"\`,;&|}\])\\]|\\[^\s'"\`,;&|}\])]){4,})\2`,
      "gi",
    ),
    replace: (marker, m, prefix, quote, value) => keepPrefix(marker, m, prefix, quote, value),
  },
  {
    kind: "assigned-secret",
    keywords: ["--pass", "--token", "--api", "--secret", "--client", "--auth"],
    pattern:
      /(--(?:password|passwd|pass|token|api-key|apikey|secret|client-secret|auth-token)[= ])((?:\\?['"])?)((?:[^\s'"\\]|\\[^\s'"]){4,})\2/gi,
    replace: (marker, m, prefix, quote, value) => keepPrefix(marker, m, prefix, quote, value),
  },
];
