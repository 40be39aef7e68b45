import { type Node, parseRegex } from "./regex-ast.js";

/**
 * A literal prefilter per pattern: lowercase ASCII strings of which every match of the
 * pattern contains at least one, so a text holding none of them cannot match and the regex
 * is not run (nor compiled by V8, which compiles a regex on its first run). Most patterns of
 * a portfolio name a command or a word that the event at hand does not hold, so most never
 * run. Derived from the pattern's syntax tree, conservatively: whatever the tree cannot
 * prove (classes, `.`, escapes, optional parts, lookaround) only weakens the filter, and a
 * pattern with nothing provable gets none (it always runs). Texts are lowercased before the
 * search, which can only add hits (ASCII letters lowercase one to one), never lose one.
 */
export type Literals = readonly string[];

/** A pattern as conditions use it. */
export interface Tester {
  test(text: string): boolean;
}

/** Most strings one set may hold, and the longest string, before a run is cut. */
const MAX_SET = 16;
const MAX_LEN = 24;
/** Shorter literals filter too little to pay for the search. */
const MIN_LEN = 2;

interface Info {
  /** Every string the node can match (lowercased), when that set is small and known. */
  exact?: Set<string>;
  /** Strings one of which every match contains, when known. */
  req?: Set<string>;
}

const EMPTY = (): Set<string> => new Set([""]);

/** The prefilter for one pattern, or undefined when none can be proven (it always runs). */
export function necessaryLiterals(source: string, flags = ""): Literals | undefined {
  if (/[gy]/.test(flags)) return undefined; // stateful patterns keep their exact behaviour
  let root: Node;
  try {
    root = parseRegex(source, flags);
  } catch {
    return undefined;
  }
  const i = info(root);
  const set = i.exact ?? i.req;
  if (!set || score(set) < MIN_LEN) return undefined;
  return [...set].sort();
}

function info(n: Node): Info {
  switch (n.type) {
    case "value":
      return isAscii(n.codePoint) ? { exact: new Set([lowerChar(n.codePoint as number)]) } : {};
    case "characterClass":
      return classInfo(n);
    case "anchor":
      return { exact: EMPTY() };
    case "alternative":
      return sequence(n.body as Node[]);
    case "group":
      return n.behavior === "normal" || n.behavior === "ignore" ? sequence(n.body as Node[]) : {};
    case "disjunction":
      return union((n.body as Node[]).map(info));
    case "quantifier":
      return repeat(n);
    default:
      return {}; // dot, \d \w \s, references, Unicode escapes: anything
  }
}

function classInfo(n: Node): Info {
  if (n.negative || (n.kind !== undefined && n.kind !== "union")) return {};
  const out = new Set<string>();
  for (const m of n.body as Node[]) {
    if (m.type !== "value" || !isAscii(m.codePoint)) return {};
    out.add(lowerChar(m.codePoint as number));
  }
  return out.size > 0 && out.size <= 4 ? { exact: out } : {};
}

function repeat(n: Node): Info {
  const min = n.min as number;
  const max = n.max as number | undefined;
  if (min === 0) return {};
  const inner = info((n.body as Node[])[0] as Node);
  if (min === 1 && max === 1) return inner;
  if (inner.exact && max === min) {
    let run: Set<string> | undefined = EMPTY();
    for (let k = 0; k < min && run; k++) run = product(run, inner.exact);
    if (run) return { exact: run };
  }
  // at least one copy: what one copy needs, the match needs
  const one = inner.exact ?? inner.req;
  return one ? { req: one } : {};
}

/** A sequence: runs of exactly known terms concatenate; the best run or term wins. */
function sequence(terms: Node[]): Info {
  let run = EMPTY();
  let whole = true;
  const found: Set<string>[] = [];
  for (const t of terms) {
    const i = info(t);
    if (i.exact) {
      const next = product(run, i.exact);
      if (next) {
        run = next;
        continue;
      }
      found.push(run);
      run = i.exact;
      whole = false;
      continue;
    }
    whole = false;
    found.push(run);
    if (i.req) found.push(i.req);
    run = EMPTY();
  }
  found.push(run);
  if (whole) return { exact: run };
  const best = bestOf(found);
  return best ? { req: best } : {};
}

/** Alternatives: exact when all are; required when every one has a requirement. */
function union(alts: Info[]): Info {
  const out: Info = {};
  if (alts.every((a) => a.exact)) {
    const all = new Set(alts.flatMap((a) => [...(a.exact as Set<string>)]));
    if (all.size <= MAX_SET) return { exact: all };
  }
  const req = new Set<string>();
  for (const a of alts) {
    const s = a.exact ?? a.req;
    if (!s || score(s) === 0) return out;
    for (const x of s) req.add(x);
  }
  if (req.size <= MAX_SET) out.req = req;
  return out;
}

function product(a: Set<string>, b: Set<string>): Set<string> | undefined {
  if (a.size * b.size > MAX_SET) return undefined;
  const out = new Set<string>();
  for (const x of a)
    for (const y of b) {
      if (x.length + y.length > MAX_LEN) return undefined;
      out.add(x + y);
    }
  return out;
}

/** The set whose shortest string is longest (fewer strings on a tie). */
function bestOf(sets: Set<string>[]): Set<string> | undefined {
  let best: Set<string> | undefined;
  for (const s of sets) {
    if (score(s) === 0) continue;
    if (!best || score(s) > score(best) || (score(s) === score(best) && s.size < best.size))
      best = s;
  }
  return best;
}

function score(s: Set<string>): number {
  let min = Number.POSITIVE_INFINITY;
  for (const x of s) min = Math.min(min, x.length);
  return s.size === 0 ? 0 : min;
}

const isAscii = (c: unknown): c is number => typeof c === "number" && c >= 0 && c < 128;
const lowerChar = (c: number): string => String.fromCharCode(c).toLowerCase();

/** The last few texts lowercased: one event's field is searched by many patterns in a row. */
const seen: string[] = [];
const lowered: string[] = [];
function lower(text: string): string {
  for (let k = 0; k < seen.length; k++) if (seen[k] === text) return lowered[k] as string;
  const low = text.toLowerCase();
  if (seen.length >= 4) {
    seen.shift();
    lowered.shift();
  }
  seen.push(text);
  lowered.push(low);
  return low;
}

/** `re`, run only on texts that hold one of `literals` (lowercased). */
export function prefiltered(re: RegExp, literals: Literals): Tester {
  return {
    test(text: string): boolean {
      const low = lower(text);
      for (const l of literals) if (low.includes(l)) return re.test(text);
      return false;
    },
  };
}
