import type { Attempt } from "../../core/model/attempt.js";

/** Triage filters: each is a value or undefined (all). */
export interface AttemptFilters {
  arm?: string;
  agent?: string;
  model?: string;
  source?: string;
  outcome?: string;
}

export const FILTER_KEYS = {
  a: "arm",
  o: "outcome",
  t: "agent",
  m: "model",
  s: "source",
} as const;
export type FilterName = (typeof FILTER_KEYS)[keyof typeof FILTER_KEYS];

function field(a: Attempt, f: FilterName): string {
  if (f === "source") return a.source.format;
  if (f === "outcome") return a.outcome;
  return (f === "arm" ? a.arm : f === "agent" ? a.agent : a.model) ?? "(none)";
}

/** The distinct values of one filter field, sorted. */
export function filterValues(attempts: readonly Attempt[], f: FilterName): string[] {
  return [...new Set(attempts.map((a) => field(a, f)))].sort();
}

/** The next value of a filter (all → first → … → last → all). */
export function cycle(values: string[], cur: string | undefined): string | undefined {
  if (cur === undefined) return values[0];
  const i = values.indexOf(cur);
  return i < 0 || i === values.length - 1 ? undefined : values[i + 1];
}

export function applyFilters(attempts: readonly Attempt[], f: AttemptFilters): Attempt[] {
  const names = Object.keys(f) as FilterName[];
  if (names.every((n) => f[n] === undefined)) return attempts as Attempt[];
  return attempts.filter((a) => names.every((n) => f[n] === undefined || field(a, n) === f[n]));
}
