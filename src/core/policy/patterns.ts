import { PATTERN_ATOMS, subConditions } from "./atoms.js";
import type { Candidate, Condition, Pattern } from "./schema.js";

/** Longest text a pattern ever sees; longer text keeps its head and tail. */
export const MATCH_CAP = 8192;
const HALF = MATCH_CAP / 2;

/** Caps text before matching: head and tail halves joined by a newline. */
export function capText(s: string): string {
  return s.length <= MATCH_CAP ? s : `${s.slice(0, HALF)}\n${s.slice(s.length - HALF)}`;
}

/** A pattern as written in a candidate, with the field path where it was written. */
export interface PatternSite {
  path: (string | number)[];
  source: string;
  flags: string;
}

export function patternParts(p: Pattern): { source: string; flags: string } {
  return typeof p === "string"
    ? { source: p, flags: "" }
    : { source: p.pattern, flags: p.flags ?? "" };
}

function conditionPatterns(c: Condition, path: (string | number)[], out: PatternSite[]): void {
  for (const k of PATTERN_ATOMS) {
    const p = c[k];
    if (p !== undefined) out.push({ path: [...path, k], ...patternParts(p) });
  }
  for (const [at, s] of subConditions(c)) conditionPatterns(s, [...path, ...at], out);
}

/** Every pattern of a candidate with its field path (for compiling, safety checks, benches). */
export function collectPatterns(c: Candidate): PatternSite[] {
  const out: PatternSite[] = [];
  for (const list of ["allOf", "anyOf", "noneOf"] as const) {
    for (const [i, p] of c.eligibility[list].entries()) {
      out.push({ path: ["eligibility", list, i], ...patternParts(p) });
    }
  }
  // a hook-cache candidate without task values has no `values` key
  (c.values ?? []).forEach((v, i) => {
    out.push({ path: ["values", i, "pattern"], ...patternParts(v.pattern) });
  });
  c.track.forEach((t, i) => {
    if (t.when) conditionPatterns(t.when, ["track", i, "when"], out);
  });
  c.rules.forEach((r, i) => {
    if (r.when) conditionPatterns(r.when, ["rules", i, "when"], out);
    if (r.release) conditionPatterns(r.release, ["rules", i, "release"], out);
  });
  conditionPatterns(c.behavior, ["behavior"], out);
  return out;
}
