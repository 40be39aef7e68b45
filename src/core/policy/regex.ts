import { enableLinearEngine, LINEAR_FLAG } from "./linear-engine.js";
import { type Node, parseRegex, printRegex } from "./regex-ast.js";

export { enableLinearEngine };

/**
 * Candidate patterns run in linear time, on V8's own engines: every pattern is admitted only
 * if V8's linear-time engine (the automaton behind the `l` flag,
 * `--enable-experimental-regexp-engine`) can run it, and every fire process sets
 * `--enable-experimental-regexp-engine-on-excessive-backtracks`, so a match that backtracks
 * past `BACKTRACK_LIMIT` steps is finished by that engine instead: ordinary patterns keep the
 * backtracking engine's speed, hostile ones cost time linear in the text. Answers are
 * JavaScript's (one semantics in replay and the hook). What the linear engine cannot run —
 * lookaround, backreferences, huge counted repeats, Unicode property classes — is refused at
 * load, save, draft and freeze with the pattern and why.
 *
 * Node 20's linear engine has no case-insensitive mode and unrolls counted repeats only up
 * to 16, so before compiling, an `i` pattern is rewritten into its case-expanded form
 * (`git` → `[gG][iI][tT]`, exactly JavaScript's `i` canonicalisation) and a long repeat of
 * one character into a chain of short ones (`.{0,40}` → `(?:.{0,15}.{0,15}.{0,10})`: the
 * same language, the same greedy or lazy preference, the same match). Why not re2js (a pure-JS RE2)? It was tried: loading and compiling
 * it costs a fresh hook process ~60 % more than the whole hook budget.
 */

/** Why a pattern cannot be used: the message names the pattern. */
export class PatternError extends Error {}

const POSIX_CLASS =
  /\[:(?:alnum|alpha|ascii|blank|cntrl|digit|graph|lower|print|punct|space|upper|word|xdigit):\]/;

/** A pattern as the engine runs it: `i` expanded away, flags otherwise unchanged. */
export interface LinearSource {
  source: string;
  flags: string;
}

/**
 * Checks a candidate pattern and returns the form fire compiles (see above). Throws
 * PatternError naming the pattern: a syntax error, a construct whose JavaScript meaning is
 * not what its author meant (`\A`, `\Z`, `\z`, `[[:digit:]]`), or one the linear engine
 * cannot run.
 */
export function linearSource(source: string, flags = ""): LinearSource {
  const shown = `/${source}/${flags}`;
  let ast: Node;
  try {
    ast = parseRegex(source, flags);
  } catch (e) {
    throw new PatternError(`pattern ${shown} does not compile: ${(e as Error).message}`);
  }
  const letterEscape = findLetterEscape(ast);
  if (letterEscape)
    throw new PatternError(
      `pattern ${shown}: ${letterEscape} is the plain letter ${letterEscape.slice(1)} in JavaScript (write ^ or $ for anchors)`,
    );
  if (POSIX_CLASS.test(source))
    throw new PatternError(
      `pattern ${shown}: POSIX classes such as [[:digit:]] are not JavaScript (write \\d, \\s, [A-Za-z])`,
    );
  if (flags.includes("i") && flags.includes("u"))
    throw new PatternError(
      `pattern ${shown}: case-insensitive Unicode patterns (flags i and u together) are not supported; drop u or spell out the cases`,
    );
  const i = flags.includes("i");
  const split = splitRepeats(i ? expandCase(ast) : ast);
  const out =
    i || split.changed
      ? { source: printRegex(split.node), flags: flags.replace("i", "") }
      : { source, flags };
  try {
    new RegExp(out.source, out.flags);
  } catch (e) {
    throw new PatternError(`pattern ${shown} does not compile: ${(e as Error).message}`);
  }
  if (enableLinearEngine()) {
    try {
      new RegExp(out.source, `${out.flags}${LINEAR_FLAG}`);
    } catch {
      throw new PatternError(
        `pattern ${shown} cannot run in linear time (lookaround, a backreference, a group repeated more than 16 times, or a \\p{…} class); rewrite it without them`,
      );
    }
  }
  return out;
}

/** Compiles an admitted pattern (`linearSource` output) for matching. */
export function linearRegExp(source: string, flags = ""): RegExp {
  enableLinearEngine();
  const l = linearSource(source, flags);
  return new RegExp(l.source, l.flags);
}

function findLetterEscape(n: Node): string | undefined {
  if (n.type === "value" && n.kind === "identifier" && /^\\[A-Za-z]$/.test(n.raw ?? ""))
    return n.raw;
  for (const c of children(n)) {
    const hit = findLetterEscape(c);
    if (hit) return hit;
  }
  return undefined;
}

function children(n: Node): Node[] {
  const out: Node[] = [];
  if (Array.isArray(n.body)) out.push(...(n.body as Node[]));
  if (n.min && typeof n.min === "object") out.push(n.min as Node);
  if (n.max && typeof n.max === "object") out.push(n.max as Node);
  return out;
}

/** Code units whose JavaScript `i` canonical form (non-Unicode mode) equals `c`'s. */
function caseVariants(c: number): number[] {
  const lower = String.fromCharCode(c).toLowerCase();
  const upper = String.fromCharCode(c).toUpperCase();
  if (c < 128) {
    const v = new Set([c]);
    if (lower.length === 1 && lower.charCodeAt(0) < 128) v.add(lower.charCodeAt(0));
    if (upper.length === 1 && upper.charCodeAt(0) < 128) v.add(upper.charCodeAt(0));
    return [...v];
  }
  return inverseCanon().get(canonicalize(c)) ?? [c];
}

function canonicalize(c: number): number {
  const u = String.fromCharCode(c).toUpperCase();
  if (u.length !== 1) return c;
  const cu = u.charCodeAt(0);
  return c >= 128 && cu < 128 ? c : cu;
}

let inverse: Map<number, number[]> | undefined;
/** canonical → every code unit with that canonical form (built once, only for non-ASCII). */
function inverseCanon(): Map<number, number[]> {
  if (inverse) return inverse;
  inverse = new Map();
  for (let c = 0; c <= 0xffff; c++) {
    const k = canonicalize(c);
    const list = inverse.get(k);
    if (list) list.push(c);
    else inverse.set(k, [c]);
  }
  return inverse;
}

const value = (codePoint: number): Node => ({
  type: "value",
  kind: /[A-Za-z0-9]/.test(String.fromCharCode(codePoint)) ? "symbol" : "unicodeEscape",
  codePoint,
});

/** The case-expanded tree: every letter becomes the class of its case variants. */
function expandCase(n: Node): Node {
  if (n.type === "value" && typeof n.codePoint === "number") {
    const v = caseVariants(n.codePoint);
    if (v.length === 1) return n;
    return { type: "characterClass", kind: "union", negative: false, body: v.map(value) };
  }
  if (n.type === "characterClass") {
    const body: Node[] = [];
    for (const c of n.body as Node[]) {
      body.push(c);
      if (c.type === "value" && typeof c.codePoint === "number") {
        for (const v of caseVariants(c.codePoint)) if (v !== c.codePoint) body.push(value(v));
      } else if (c.type === "characterClassRange") {
        const lo = (c.min as Node).codePoint as number;
        const hi = (c.max as Node).codePoint as number;
        for (let x = lo; x <= hi; x++)
          for (const v of caseVariants(x)) if (v < lo || v > hi) body.push(value(v));
      }
    }
    return { ...n, body };
  }
  if (Array.isArray(n.body)) return { ...n, body: (n.body as Node[]).map((c) => expandCase(c)) };
  return n;
}

/** Most repetitions per quantifier in a rewritten repeat (V8 unrolls at most 16). */
const CHUNK = 15;
const SINGLE = new Set(["value", "characterClass", "characterClassEscape", "dot"]);

/**
 * Rewrites `x{m,n}` over one character (n or m past CHUNK) so no quantifier repeats more than
 * CHUNK times, keeping each count ONE way to match (a chain like `x{0,15}x{0,15}` would let a
 * backtracking engine try every split of the same count): the required `x{m}` as exact
 * chunks, then the optional `x{0,k}` as `(?:x{15}(?:…)|x{0,14})` — at least 15 more, or fewer
 * — tried in the quantifier's own order (most first when greedy, fewest first when lazy).
 * `x{m,}` becomes the exact chunks and `x*`.
 */
function splitRepeats(n: Node): { node: Node; changed: boolean } {
  let changed = false;
  const walk = (x: Node): Node => {
    if (x.type === "quantifier") {
      const body = (x.body as Node[]).map(walk);
      const atom = body[0] as Node;
      const min = x.min as number;
      const max = x.max as number | undefined;
      const long = max === undefined ? min > CHUNK : max > CHUNK;
      if (!long || !SINGLE.has(atom.type)) return { ...x, body };
      changed = true;
      const greedy = x.greedy !== false;
      const q = (lo: number, hi: number | undefined): Node => ({
        type: "quantifier",
        min: lo,
        max: hi,
        greedy,
        body: [atom],
      });
      const parts: Node[] = [];
      for (let left = min; left > 0; left -= Math.min(CHUNK, left)) {
        const k = Math.min(CHUNK, left);
        parts.push(q(k, k));
      }
      if (max === undefined) parts.push(q(0, undefined));
      else if (max > min) parts.push(optional(max - min, q, greedy));
      return { type: "group", behavior: "ignore", body: parts };
    }
    if (Array.isArray(x.body)) return { ...x, body: (x.body as Node[]).map(walk) };
    return x;
  };
  const node = walk(n);
  return { node, changed };
}

/** `x{0,k}` with every count matched one way (see splitRepeats). */
function optional(
  k: number,
  q: (lo: number, hi: number | undefined) => Node,
  greedy: boolean,
): Node {
  if (k <= CHUNK) return q(0, k);
  const more: Node = {
    type: "alternative",
    body: [q(CHUNK, CHUNK), optional(k - CHUNK, q, greedy)],
  };
  const fewer = q(0, CHUNK - 1);
  return {
    type: "group",
    behavior: "ignore",
    body: [{ type: "disjunction", body: greedy ? [more, fewer] : [fewer, more] }],
  };
}
