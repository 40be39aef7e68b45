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
import { SECRET_RULES, type SecretKind, type SecretRule } from "./secret-rules.js";

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
  return { text: redactCounting(text, counts), counts };
}

/**
 * `text` with every secret replaced, counted into `counts` when given: `redact` asks no
 * counts, so a text without secrets (nearly every string of an attempt) allocates nothing.
 */
function redactCounting(text: string, counts?: Partial<Record<SecretKind, number>>): string {
  // one pass finds every rule's keywords: most text (trace outputs, commands) has none
  let scan = scanKeywords(text);
  if (!scan) return text;
  let out = text;
  for (const rule of SECRET_RULES) {
    const ids = ruleKeywordIds(rule);
    if (!ids.some((k) => scan?.found[k] === 1)) continue;
    const before = out;
    const replacer = (match: string, ...rest: unknown[]): string => {
      const end = rest.findIndex((g) => typeof g === "number");
      if (rule.prose && isProse(match, rest[end] as number, rest[end + 1] as string)) return match;
      const groups = rest.slice(0, end).map((g) => (typeof g === "string" ? g : ""));
      const marker = redactionMarker(rule.kind);
      const replaced = rule.replace ? rule.replace(marker, match, ...groups) : marker;
      if (counts && replaced !== match) counts[rule.kind] = (counts[rule.kind] ?? 0) + 1;
      return replaced;
    };
    out = rule.near
      ? replaceNear(out, rule, rule.near, ids, scan.at, replacer)
      : out.replace(rule.pattern, replacer);
    if (out !== before) scan = scanKeywords(out) ?? { found: new Uint8Array(0), at: [] };
  }
  return out;
}

/** The keywords found in a text, and where the keywords of `near` rules start. */
interface KeywordScan {
  /** 1 at a keyword's id (KeywordIndex.words) when it occurs. */
  found: Uint8Array;
  /** Pairs of (start, keyword id) for the located keywords, in order of their start. */
  at: number[];
}

interface KeywordIndex {
  /** Every rule's keywords, once each, lower case. */
  words: string[];
  /**
   * Keyword ids by their first two characters (lower case ASCII, key `c1 * 128 + c2`): the ids
   * of key k are `pairIds[pairStart[k]]` up to (not including) `pairIds[pairStart[k + 1]]`.
   */
  pairStart: Uint16Array;
  pairIds: Uint16Array;
  /** 1 where a rule with `near` names the keyword (its starts are recorded). */
  located: Uint8Array;
  ids: Map<SecretRule, number[]>;
  /**
   * Matches where any keyword starts (case-insensitively, ASCII folds only): a global pattern
   * of the keywords' common prefixes.
   */
  any: RegExp;
}

/** ASCII upper case to lower case, as a case-insensitive pattern compares (no Unicode folds). */
const FOLD = Uint8Array.from({ length: 128 }, (_, c) => (c >= 65 && c <= 90 ? c + 32 : c));

let keywordIndex: KeywordIndex | undefined;
/** Built on first use (the hook loads this module and may never redact). */
function index(): KeywordIndex {
  if (keywordIndex) return keywordIndex;
  const words: string[] = [];
  const ids = new Map<SecretRule, number[]>();
  for (const rule of SECRET_RULES) {
    ids.set(
      rule,
      rule.keywords.map((k) => {
        if (k.length < 2 || k !== k.toLowerCase() || /[^\x20-\x7e]/.test(k))
          throw new Error(`secret rule ${rule.kind}: keyword ${k} is not lower-case ASCII of 2+`);
        const at = words.indexOf(k);
        return at >= 0 ? at : words.push(k) - 1;
      }),
    );
  }
  const pairKey = (k: string) => k.charCodeAt(0) * 128 + k.charCodeAt(1);
  const pairStart = new Uint16Array(128 * 128 + 1);
  for (const k of words) pairStart[pairKey(k) + 1]!++;
  for (let i = 1; i < pairStart.length; i++) pairStart[i]! += pairStart[i - 1]!;
  const pairIds = new Uint16Array(words.length);
  const filled = pairStart.slice(0, -1);
  for (const [id, k] of words.entries()) pairIds[filled[pairKey(k)]!++] = id;
  const located = new Uint8Array(words.length);
  for (const rule of SECRET_RULES) if (rule.near) for (const id of ids.get(rule)!) located[id] = 1;
  keywordIndex = { words, pairStart, pairIds, located, ids, any: anyOf(words) };
  return keywordIndex;
}

/**
 * A pattern matching where any of `words` (lower-case ASCII) starts, without the `u` flag, so
 * /i folds ASCII letters only: the words as a trie of alternatives, a word that is a prefix of
 * others standing for them all (where a longer word starts, its prefix does).
 */
function anyOf(words: readonly string[]): RegExp {
  interface Node {
    end: boolean;
    next: Map<string, Node>;
  }
  const root: Node = { end: false, next: new Map() };
  for (const w of words) {
    let n = root;
    for (const ch of w) {
      let c = n.next.get(ch);
      if (!c) {
        c = { end: false, next: new Map() };
        n.next.set(ch, c);
      }
      n = c;
    }
    n.end = true;
  }
  const source = (n: Node): string => {
    if (n.end) return "";
    const alts = [...n.next].map(
      ([ch, c]) => ch.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&") + source(c),
    );
    return alts.length === 1 ? alts[0]! : `(?:${alts.join("|")})`;
  };
  return new RegExp(source(root), "gi");
}

function ruleKeywordIds(rule: SecretRule): number[] {
  return index().ids.get(rule)!;
}

/** Whether `word` (lower case) is at `at` in `text`, its first two characters known to be. */
function startsWithFolded(text: string, at: number, word: string): boolean {
  if (at + word.length > text.length) return false;
  for (let i = 2; i < word.length; i++) {
    const c = text.charCodeAt(at + i);
    if (c >= 128 || FOLD[c] !== word.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * Finds the rules' keywords, case-insensitively as a /i pattern reads them: `any` finds each
 * place some keyword starts (most texts have none: one native search), a table of the
 * keywords' first two characters and a compare tell which ones. Undefined when there is none.
 * (One `includes` per keyword scanned long outputs some 70 times over; a loop over every
 * character, twice as slow as the search, was most of the time a cold read spent redacting.)
 */
function scanKeywords(text: string): KeywordScan | undefined {
  const { words, pairStart, pairIds, located, any } = index();
  let found: Uint8Array | undefined;
  let at: number[] | undefined;
  any.lastIndex = 0;
  for (let m = any.exec(text); m !== null; m = any.exec(text)) {
    const i = m.index;
    any.lastIndex = i + 1; // keywords overlap (`sk` in `sk-ant-`): every start is looked at
    const c = text.charCodeAt(i);
    const d = text.charCodeAt(i + 1);
    if (c >= 128 || d >= 128) continue; // not so: `any` folds ASCII only
    const key = FOLD[c]! * 128 + FOLD[d]!;
    const end = pairStart[key + 1]!;
    for (let j = pairStart[key]!; j < end; j++) {
      const id = pairIds[j]!;
      if (found?.[id] === 1 && located[id] === 0) continue;
      if (!startsWithFolded(text, i, words[id]!)) continue;
      found ??= new Uint8Array(words.length);
      found[id] = 1;
      if (located[id] === 0) continue;
      at ??= [];
      at.push(i, id);
    }
  }
  return found && { found, at: at ?? [] };
}

const stickyPatterns = new Map<RegExp, RegExp>();
function sticky(re: RegExp): RegExp {
  let s = stickyPatterns.get(re);
  if (!s) {
    s = new RegExp(re.source, `${re.flags.replace("g", "")}y`);
    stickyPatterns.set(re, s);
  }
  return s;
}

/**
 * `text.replace(rule.pattern, replacer)` for a rule with `near`, trying the pattern only at
 * the starts `reach` characters in front of an anchor: every match starts there, so the
 * leftmost match after the previous one is the same, and so is the result.
 */
function replaceNear(
  text: string,
  rule: SecretRule,
  near: NonNullable<SecretRule["near"]>,
  ids: number[],
  at: number[],
  replacer: (match: string, ...rest: unknown[]) => string,
): string {
  const pattern = sticky(rule.pattern);
  let out = "";
  let copied = 0; // text before this is in `out`
  let tried = 0; // starts before this were tried (or lie inside a match)
  for (let j = 0; j < at.length; j += 2) {
    const p = at[j]!;
    if (p < tried || !ids.includes(at[j + 1]!)) continue;
    near.anchor.lastIndex = p;
    if (!near.anchor.test(text)) continue;
    for (let s = Math.max(tried, p - near.reach); s <= p; s++) {
      pattern.lastIndex = s;
      const m = pattern.exec(text);
      if (!m) continue;
      out += text.slice(copied, s) + replacer(m[0], ...m.slice(1), s, text);
      copied = s + m[0].length;
      tried = Math.max(copied, s + 1); // as replace: an empty match moves on by one
      break;
    }
    if (tried <= p) tried = p + 1;
  }
  return copied === 0 && out === "" ? text : out + text.slice(copied);
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
  return redactCounting(text);
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

/**
 * Redacts every string inside a JSON-like value the caller owns (plain objects, arrays), in
 * place: what redactDeep gives, without copying every object (a parsed attempt is most of
 * its unit's memory). Returns the value.
 */
export function redactInPlace<T>(value: T): T {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (typeof v === "string") {
        const r = redact(v);
        if (r !== v) value[i] = r;
      } else if (v !== null && typeof v === "object") redactInPlace(v);
    }
  } else if (value !== null && typeof value === "object") {
    const o = value as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      const v = o[k];
      if (typeof v === "string") {
        const r = redact(v);
        if (r !== v) o[k] = r;
      } else if (v !== null && typeof v === "object") redactInPlace(v);
    }
  }
  return value;
}
