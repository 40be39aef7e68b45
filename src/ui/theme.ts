/**
 * Semantic colour tokens: components name a role (accent, good, bad…), never a colour.
 * Under NO_COLOR every token is undefined, so text stays plain and meaning is carried by
 * the symbols and words next to it (✓ ✗ ▸ ● and the status words).
 */
export interface Theme {
  /** Titles, the active tab, key names in hints. */
  accent: string | undefined;
  /** Secondary text: counts, paths, hints. */
  muted: string | undefined;
  /** Passing, done, allowed. */
  good: string | undefined;
  /** Failing, errors, deny. */
  bad: string | undefined;
  /** Warnings, excluded, cancelled, instruct firings. */
  warn: string | undefined;
  /** Informational markers (capability evidence, detector hits). */
  info: string | undefined;
  /** Whether colour is in use at all. */
  color: boolean;
}

const COLOURED: Theme = {
  accent: "cyan",
  muted: "gray",
  good: "green",
  bad: "red",
  warn: "yellow",
  info: "magenta",
  color: true,
};

const PLAIN: Theme = {
  accent: undefined,
  muted: undefined,
  good: undefined,
  bad: undefined,
  warn: undefined,
  info: undefined,
  color: false,
};

/** The theme for an environment: plain when `NO_COLOR` is set to anything non-empty. */
export function themeFor(env: NodeJS.ProcessEnv = process.env): Theme {
  return env.NO_COLOR !== undefined && env.NO_COLOR !== "" ? PLAIN : COLOURED;
}

/** The token for an attempt outcome. */
export function outcomeToken(theme: Theme, outcome: string): string | undefined {
  if (outcome === "pass") return theme.good;
  if (outcome === "fail" || outcome === "error") return theme.bad;
  if (outcome === "timeout") return theme.warn;
  return theme.muted;
}
