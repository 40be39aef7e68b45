import { EventKind } from "../model/attempt.js";
import type { Condition } from "./schema.js";

/**
 * THE registry of condition atoms: one record per key a condition may hold (besides the
 * combinators all / any / not). Its description is what the LLM drafter is told (and what
 * docs show); `values` names the task-value lists the atom reads, which the candidate schema
 * checks are declared. A new atom is its record here, its shape in schema.ts (TS type and zod,
 * side by side) and its meaning in condition.ts; test/core/policy/atoms.test.ts fails when the
 * schema and this registry disagree.
 */
export interface AtomRecord {
  /** What the atom tests, in the words the drafter gets. */
  description: string;
  /** The values lists the atom reads, with the path (below the atom) naming each. */
  values?: (v: never) => { name: string; at: (string | number)[] }[];
}

const names = (v: string | string[]): string[] => (typeof v === "string" ? [v] : v);

export const CONDITION_ATOMS = {
  kind: { description: `the event kind(s): ${EventKind.options.join(", ")}` },
  role: { description: "who spoke: user, agent or system" },
  tool: { description: "the tool name matches (pattern)" },
  command: { description: "the shell command matches (pattern)" },
  input: { description: "the tool input matches (pattern)" },
  output: { description: "the tool output matches (pattern)" },
  text: { description: "the command, the input or the output matches (pattern)" },
  writes: { description: "some path an edit tool wrote matches (pattern)" },
  exitCode: { description: "the exit code: a number or {eq, ne, lt, le, gt, ge}" },
  isError: { description: "the tool result is an error (true/false)" },
  status: {
    description: "the tool result's exit status: ok, failed or unknown (unknown is never ok)",
  },
  flag: { description: "every named flag is set" },
  unset: { description: "every named flag is unset" },
  recorded: { description: "every named step has been recorded" },
  steps: { description: 'an ordering of recorded steps: "probe > launch", "now > write"' },
  count: { description: 'a counter comparison: "edits >= 1", "same_error >= 3"' },
  captured: {
    description: "the named values list captured something from the task text",
    values: (v: string | string[]) => names(v).map((name) => ({ name, at: [] })),
  },
  unmarked: {
    description: "{values, as, markedAs?}: some captured value is not marked",
    values: (v: { values: string }) => [{ name: v.values, at: ["values"] }],
  },
  mentions: {
    description: "{values, match?, unless?}: the current tool call uses a captured value",
    values: (v: { values: string }) => [{ name: v.values, at: ["values"] }],
  },
  elapsed: {
    description:
      "{share, of}: time since the first event is at least share (0-1] of the time limit captured in values list of",
    values: (v: { of: string }) => [{ name: v.of, at: ["of"] }],
  },
  timed: {
    description: "the named values list captured a time limit and events carry timestamps",
    values: (v: string) => [{ name: v, at: [] }],
  },
} satisfies Record<Exclude<keyof Condition, "all" | "any" | "not">, AtomRecord>;

export type AtomName = keyof typeof CONDITION_ATOMS;

/** The combinators a condition may nest (not atoms). */
export const COMBINATORS = {
  all: "every sub-condition holds",
  any: "some sub-condition holds",
  not: "the sub-condition does not hold",
} as const;

/** The condition keys and what each means, one line (the drafter's description). */
export function conditionKeysText(): string {
  return [
    ...Object.entries(CONDITION_ATOMS).map(([k, a]) => `${k} (${a.description})`),
    ...Object.entries(COMBINATORS).map(([k, d]) => `${k} (${d})`),
  ].join("; ");
}

/** Every values-list name a condition (and its sub-conditions) reads, with its path. */
export function conditionValueRefs(
  c: Condition,
  path: (string | number)[],
  known: (name: string, path: (string | number)[]) => void,
): void {
  for (const [key, atom] of Object.entries(CONDITION_ATOMS) as [AtomName, AtomRecord][]) {
    const v = c[key];
    if (v === undefined || !atom.values) continue;
    for (const r of atom.values(v as never)) known(r.name, [...path, key, ...r.at]);
  }
  for (const [i, s] of (c.all ?? []).entries()) conditionValueRefs(s, [...path, "all", i], known);
  for (const [i, s] of (c.any ?? []).entries()) conditionValueRefs(s, [...path, "any", i], known);
  if (c.not) conditionValueRefs(c.not, [...path, "not"], known);
}
