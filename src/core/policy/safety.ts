import { collectPatterns } from "./patterns.js";
import { linearSource, PatternError } from "./regex.js";
import type { Candidate } from "./schema.js";

/**
 * Pattern admission: every pattern of a candidate must run in linear time on V8's linear
 * engine (regex.ts). What it refuses — lookaround, backreferences, huge counted repeats,
 * `\p{…}`, letters escaped as if they were RE2 anchors (`\A`, `\Z`) or POSIX classes — is
 * reported for every pattern at once, at load, save, draft and freeze, with its field path
 * (the loader turns that into file:line).
 */
export interface UnsafePattern {
  path: (string | number)[];
  source: string;
  flags: string;
  reason: string;
}

/** Every pattern of the candidate that admission refuses, with why. */
export function unsafePatterns(c: Candidate): UnsafePattern[] {
  const out: UnsafePattern[] = [];
  for (const site of collectPatterns(c)) {
    try {
      linearSource(site.source, site.flags);
    } catch (e) {
      if (!(e instanceof PatternError)) throw e;
      out.push({ ...site, reason: e.message });
    }
  }
  return out;
}
