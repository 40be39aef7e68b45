import { enableLinearEngine, LINEAR_FLAG } from "../core/policy/linear-engine.js";
import { linearSource, PatternError } from "../core/policy/regex.js";

/**
 * Fuzzing fire's pattern engine against a reference: random patterns (literals of both cases
 * and non-ASCII, classes, escapes, `.`, groups, alternation, anchors, greedy and lazy
 * quantifiers including counted repeats past 16, which fire rewrites) with random flags, each
 * run on random texts: JavaScript's own RegExp on the pattern as written (the reference)
 * against fire's rewritten form (`linearSource`: `i` expanded, long repeats split) as the hook
 * runs it, comparing the whole match: index, text and every capture; and, counted apart, that
 * form forced onto V8's linear-time engine (the `l` flag, where a hostile match ends up). A pattern fire refuses
 * is counted, not compared. Seeded: the same seed gives the same patterns.
 */
export interface FuzzReport {
  patterns: number;
  refused: number;
  compared: number;
  /**
   * Texts on which fire's form, run as the hook runs it (backtracking, V8's linear engine
   * only past 10 000 backtracks), answered otherwise than the reference (the first 20 kept).
   */
  mismatched: number;
  /**
   * Texts on which the same form forced onto the linear engine answers otherwise: V8's
   * experimental engine differs from ECMAScript on quantified groups that can match empty
   * (`(?:\W^|\W??){1,4}`). Reached only by a match that backtracks past the limit.
   */
  linearDiffers: number;
  mismatches: { source: string; flags: string; text: string; why: string }[];
}

/** mulberry32: a small seeded PRNG. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CHARS = [
  "a",
  "b",
  "c",
  "A",
  "B",
  "x",
  "Z",
  "1",
  "7",
  " ",
  "-",
  "_",
  "é",
  "É",
  "ß",
  "k",
  "K",
  "\n",
];
const LITERALS = [
  "a",
  "b",
  "c",
  "A",
  "x",
  "Z",
  "1",
  " ",
  "-",
  "é",
  "ß",
  "k",
  "\\.",
  "\\-",
  "\\n",
  "\\/",
];
const CLASSES = [
  "[a-c]",
  "[^ab]",
  "[A-Za-z]",
  "[0-9x]",
  "[éK]",
  "\\d",
  "\\w",
  "\\s",
  "\\D",
  "\\W",
  "\\S",
  ".",
];

export function fuzzPatterns(count: number, seed = 27): FuzzReport {
  enableLinearEngine();
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  const quant = (): string => {
    const q = r();
    let s: string;
    if (q < 0.45) return "";
    if (q < 0.6) s = "*";
    else if (q < 0.72) s = "+";
    else if (q < 0.8) s = "?";
    else {
      const m = int(0, 3);
      const big = r() < 0.4; // past 16: fire splits it
      const n = big ? int(17, 60) : int(m, m + 5);
      const k = r();
      s = k < 0.3 ? `{${m}}` : k < 0.45 ? `{${m},}` : `{${m},${Math.max(m, n)}}`;
    }
    return r() < 0.25 ? `${s}?` : s;
  };
  const seq = (depth: number): string => {
    let out = "";
    for (let i = int(1, 4); i > 0; i--) {
      const a = r();
      if (a < 0.08) out += pick(["^", "$", "\\b", "\\B"]);
      else if (a < 0.45) out += pick(LITERALS) + quant();
      else if (a < 0.75 || depth >= 2) out += pick(CLASSES) + quant();
      else out += `(${r() < 0.5 ? "?:" : ""}${alt(depth + 1)})${quant()}`;
    }
    return out;
  };
  const alt = (depth: number): string => {
    const n = r() < 0.7 ? 1 : int(2, 3);
    return Array.from({ length: n }, () => seq(depth)).join("|");
  };
  const text = (): string => {
    let t = "";
    // short: the reference engine backtracks, exponentially on nested quantifiers
    for (let i = int(0, 14); i > 0; i--) t += pick(CHARS);
    return t;
  };
  const report: FuzzReport = {
    patterns: 0,
    refused: 0,
    compared: 0,
    mismatched: 0,
    linearDiffers: 0,
    mismatches: [],
  };
  const shown = (m: RegExpExecArray | null) =>
    m === null ? "null" : JSON.stringify([m.index, ...Array.from(m)]);
  for (let i = 0; i < count; i++) {
    const source = alt(0);
    const flags = pick(["", "", "i", "i", "m", "s", "is", "u"]);
    report.patterns++;
    let ref: RegExp;
    try {
      ref = new RegExp(source, flags);
    } catch {
      report.refused++; // not JavaScript either
      continue;
    }
    let ours: RegExp;
    let linear: RegExp;
    try {
      const l = linearSource(source, flags);
      ours = new RegExp(l.source, l.flags);
      linear = new RegExp(l.source, `${l.flags}${LINEAR_FLAG}`);
    } catch (err) {
      if (!(err instanceof PatternError)) throw err;
      report.refused++;
      continue;
    }
    for (let j = 0; j < 3; j++) {
      const t = text();
      const want = shown(ref.exec(t));
      report.compared++;
      const got = shown(ours.exec(t));
      if (got !== want) {
        report.mismatched++;
        if (report.mismatches.length < 20)
          report.mismatches.push({ source, flags, text: t, why: `${got} ≠ ${want}` });
      }
      if (shown(linear.exec(t)) !== want) report.linearDiffers++;
    }
  }
  return report;
}
