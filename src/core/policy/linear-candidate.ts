import { PATTERN_ATOMS } from "./atoms.js";
import { patternParts } from "./patterns.js";
import { linearSource } from "./regex.js";
import type { Candidate, Condition, Pattern } from "./schema.js";

/**
 * The candidate with every pattern in the form the engine runs (regex.ts `linearSource`:
 * `i` expanded away): what the hook's portfolio cache and a screen payload store, so the
 * hook compiles them with `compilePolicy(c, file, { admitted: true })` without parsing any
 * pattern again. Throws PatternError for a pattern admission refuses.
 */
export function linearCandidate(c: Candidate): Candidate {
  return {
    ...c,
    eligibility: {
      allOf: c.eligibility.allOf.map(linear),
      anyOf: c.eligibility.anyOf.map(linear),
      noneOf: c.eligibility.noneOf.map(linear),
    },
    ...(c.values ? { values: c.values.map((v) => ({ ...v, pattern: linear(v.pattern) })) } : {}),
    track: c.track.map((t) => (t.when ? { ...t, when: cond(t.when) } : t)),
    rules: c.rules.map((r) => ({
      ...r,
      ...(r.when ? { when: cond(r.when) } : {}),
      ...(r.release ? { release: cond(r.release) } : {}),
    })),
    behavior: cond(c.behavior),
  };
}

function linear(p: Pattern): Pattern {
  const { source, flags } = patternParts(p);
  const l = linearSource(source, flags);
  return l.flags === "" ? l.source : { pattern: l.source, flags: l.flags };
}

function cond(c: Condition): Condition {
  const out: Condition = { ...c };
  for (const k of PATTERN_ATOMS) {
    const p = c[k];
    if (p !== undefined) out[k] = linear(p);
  }
  if (c.all) out.all = c.all.map(cond);
  if (c.any) out.any = c.any.map(cond);
  if (c.not) out.not = cond(c.not);
  return out;
}
