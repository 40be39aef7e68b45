import safeRegex from "safe-regex2";
import { collectPatterns } from "./patterns.js";
import type { Candidate } from "./schema.js";

/**
 * Pattern safety (kept apart from compile/evaluate so the hook can skip it for a
 * hash-verified frozen portfolio). We use safe-regex2's star-height check: it loads in a few
 * milliseconds and checks a pattern in microseconds. recheck is more accurate (it also finds
 * overlapping alternations under a star and polynomial cases) but measured 0.1–1.4 s per
 * pattern here, i.e. seconds per portfolio load. Residual risk is bounded by MATCH_CAP.
 */
/**
 * safe-regex2 also rejects patterns with more than `limit` quantifiers in total (default 25);
 * long alternations of command names legitimately have more, and matched text is capped, so
 * we allow 60.
 */
export const REPETITION_LIMIT = 60;

export interface UnsafePattern {
  path: (string | number)[];
  source: string;
  flags: string;
  reason: string;
}

/** Every pattern that may backtrack catastrophically (nested quantifiers / huge repeats). */
export function unsafePatterns(c: Candidate): UnsafePattern[] {
  const out: UnsafePattern[] = [];
  for (const site of collectPatterns(c)) {
    let ok: boolean;
    try {
      ok = safeRegex(new RegExp(site.source, site.flags), { limit: REPETITION_LIMIT });
    } catch {
      continue; // compile errors are reported by compilePolicy
    }
    if (!ok) {
      out.push({
        ...site,
        reason: `pattern /${site.source}/${site.flags} may backtrack catastrophically (a repeated group that itself repeats, or too many repetitions); rewrite it without nested quantifiers`,
      });
    }
  }
  return out;
}
