import type { z } from "zod";
import { EVENT_KINDS } from "../model/event-kinds.js";
import { exitStatus } from "../model/exit-status.js";
import { checkBudget } from "./budget.js";
import type { CondCtx, Pred } from "./condition.js";
import { COUNT_CMP, STEP_ORDER } from "./grammar.js";
import type { Tester } from "./prefilter.js";
import type { AtomShapes, Condition, Pattern } from "./schema.js";
import { durationSeconds, eventMentions } from "./values.js";

/**
 * THE registry of condition atoms: one record per key a condition may hold (besides the
 * combinators all / any / not), and everything else derives from it:
 * - `shape`: its zod shape, from the building blocks schema.ts passes in; the `Condition`
 *   schema, its TS type and the JSON schema (`npm run schema`) are made of these;
 * - `description`: what the LLM drafter is told and the table in docs/policy-language.md;
 * - `pattern`: it holds a pattern (the pattern walkers, patterns.ts and linear-candidate.ts);
 * - `values`: the task-value lists it reads, which the candidate schema checks are declared;
 * - `compile`: its meaning, a predicate over the event and the policy's state (condition.ts
 *   runs every atom of a condition through it; `costly` ones run after the cheap ones).
 * A new atom is its record here and a test. Nothing here loads zod at run time (the hook's
 * hot path compiles conditions): shapes are built by schema.ts from what it passes in.
 */
export interface AtomRecord<S extends z.ZodType> {
  /** The atom's zod shape, built from schema.ts's building blocks. */
  shape: (s: AtomShapes) => S;
  /** What the atom tests, in the words the drafter gets. */
  description: string;
  /** The atom holds a pattern (compiled, linearized and safety-checked with the others). */
  pattern?: true;
  /** The values lists the atom reads, with the path (below the atom) naming each. */
  values?: (v: z.infer<S>) => { name: string; at: (string | number)[] }[];
  /** Its meaning: a predicate over the event and state. */
  compile: (v: z.infer<S>, h: AtomCompiler) => Pred;
  /** Reads text or walks values: run after the cheap state and kind tests. */
  costly?: true;
}

/** What an atom's `compile` gets from the condition compiler. */
export interface AtomCompiler {
  /** The atom's pattern compiled (behind its prefilter); a bad one throws CompileError. */
  tester: (p: Pattern) => Tester;
}

/**
 * Declares one atom: the value type of `values` and `compile` follows from `shape`, and
 * whether it holds a pattern stays in its type (for `PatternAtom`).
 */
const atom = <S extends z.ZodType, P extends true | undefined = undefined>(
  r: AtomRecord<S> & { pattern?: P },
): AtomRecord<S> & { pattern: P } => r as AtomRecord<S> & { pattern: P };

const list = <T extends string>(v: T | T[]): T[] => (typeof v === "string" ? [v] : v);

export function cmp(a: number, op: string, b: number): boolean {
  switch (op) {
    case ">":
      return a > b;
    case ">=":
      return a >= b;
    case "<":
      return a < b;
    case "<=":
      return a <= b;
    case "==":
      return a === b;
    default:
      return a !== b;
  }
}

/** An event field a pattern atom reads, tested with the atom's pattern. */
const field =
  (f: "tool" | "command" | "input" | "output", re: Tester): Pred =>
  ({ ev }) => {
    const s = ev[f];
    if (s === undefined) return false;
    checkBudget();
    return re.test(s);
  };

/** The time limit (seconds) the task text states: the first duration captured in `of`. */
function limitOf(ps: CondCtx["ps"], of: string): number | undefined {
  for (const v of ps.values?.[of] ?? []) {
    const s = durationSeconds(v);
    if (s !== undefined) return s;
  }
  return undefined;
}

const NUMBER_TESTS = [
  ["eq", "=="],
  ["ne", "!="],
  ["lt", "<"],
  ["le", "<="],
  ["gt", ">"],
  ["ge", ">="],
] as const;

/** A number test (`7`, or `{ge: 1, lt: 3}`) as a predicate on a number: every bound holds. */
function numberTest(
  t: number | Partial<Record<(typeof NUMBER_TESTS)[number][0], number>>,
): (n: number) => boolean {
  const tests: [string, number][] =
    typeof t === "number"
      ? [["==", t]]
      : NUMBER_TESTS.flatMap(([k, op]) => (t[k] === undefined ? [] : [[op, t[k]]]));
  return (n) => tests.every(([op, v]) => cmp(n, op, v));
}

export const CONDITION_ATOMS = {
  kind: atom({
    shape: (s) => s.z.union([s.EventKind, s.z.array(s.EventKind).min(1)]),
    description: `the event kind(s): ${EVENT_KINDS.join(", ")}`,
    compile: (v) => {
      const kinds = new Set<string>(list(v));
      return (x) => kinds.has(x.ev.kind);
    },
  }),
  role: atom({
    shape: (s) => s.z.enum(["user", "agent", "system"]),
    description: "who spoke: user, agent or system",
    compile: (role) => (x) => x.ev.role === role,
  }),
  tool: atom({
    shape: (s) => s.Pattern,
    description: "the tool name matches (pattern)",
    pattern: true,
    costly: true,
    compile: (p, h) => field("tool", h.tester(p)),
  }),
  command: atom({
    shape: (s) => s.Pattern,
    description: "the shell command matches (pattern)",
    pattern: true,
    costly: true,
    compile: (p, h) => field("command", h.tester(p)),
  }),
  input: atom({
    shape: (s) => s.Pattern,
    description: "the tool input matches (pattern)",
    pattern: true,
    costly: true,
    compile: (p, h) => field("input", h.tester(p)),
  }),
  output: atom({
    shape: (s) => s.Pattern,
    description: "the tool output matches (pattern)",
    pattern: true,
    costly: true,
    compile: (p, h) => field("output", h.tester(p)),
  }),
  text: atom({
    shape: (s) => s.Pattern,
    description: "the command, the input or the output matches (pattern)",
    pattern: true,
    costly: true,
    compile: (p, h) => {
      const re = h.tester(p);
      return ({ ev }) => {
        checkBudget();
        return (
          (ev.command !== undefined && re.test(ev.command)) ||
          (ev.input !== undefined && re.test(ev.input)) ||
          (ev.output !== undefined && re.test(ev.output))
        );
      };
    },
  }),
  writes: atom({
    shape: (s) => s.Pattern,
    description: "some path an edit tool wrote matches (pattern)",
    pattern: true,
    costly: true,
    compile: (p, h) => {
      const re = h.tester(p);
      return ({ ev }) => {
        checkBudget();
        return ev.writes?.some((w) => re.test(w)) === true;
      };
    },
  }),
  exitCode: atom({
    shape: (s) => s.NumberTest,
    description: "the exit code: a number or {eq, ne, lt, le, gt, ge}",
    compile: (t) => {
      const holds = numberTest(t);
      return ({ ev }) => ev.exitCode !== undefined && holds(ev.exitCode);
    },
  }),
  isError: atom({
    shape: (s) => s.z.boolean(),
    description: "the tool result is an error (true/false)",
    compile: (want) => (x) => (x.ev.isError ?? false) === want,
  }),
  final: atom({
    shape: (s) => s.Pattern,
    description:
      "at a stop: the agent's last message matches (pattern); never holds where it is not known",
    pattern: true,
    costly: true,
    compile: (p, h) => {
      const re = h.tester(p);
      return ({ ev }) => {
        if (ev.final === undefined) return false;
        checkBudget();
        return re.test(ev.final);
      };
    },
  }),
  background: atom({
    shape: (s) => s.NumberTest,
    description:
      "at a stop: the background tasks the harness still runs, a number or {eq, ne, lt, le, gt, ge}; never holds where the harness does not say",
    compile: (t) => {
      const holds = numberTest(t);
      return ({ ev }) => ev.background !== undefined && holds(ev.background);
    },
  }),
  status: atom({
    shape: (s) => s.z.union([s.ExitStatus, s.z.array(s.ExitStatus).min(1)]),
    description: "the tool result's exit status: ok, failed or unknown (unknown is never ok)",
    compile: (v) => {
      const want = new Set<string>(list(v));
      return ({ ev }) => ev.kind === "tool_result" && want.has(exitStatus(ev));
    },
  }),
  flag: atom({
    shape: (s) => s.Names,
    description: "every named flag is set",
    compile: (v) => {
      const names = list(v);
      return ({ ps }) => names.every((n) => ps.flags[n] === true);
    },
  }),
  unset: atom({
    shape: (s) => s.Names,
    description: "every named flag is unset",
    compile: (v) => {
      const names = list(v);
      return ({ ps }) => names.every((n) => ps.flags[n] !== true);
    },
  }),
  recorded: atom({
    shape: (s) => s.Names,
    description: "every named step has been recorded",
    compile: (v) => {
      const names = list(v);
      return ({ ps }) => names.every((n) => ps.steps[n] !== undefined);
    },
  }),
  steps: atom({
    shape: (s) =>
      s.z
        .string()
        .regex(STEP_ORDER, "expected a step ordering such as `probe > launch` or `now > launch`"),
    description: 'an ordering of recorded steps: "probe > launch", "now > write"',
    compile: (v) => {
      const [, a, op, b] = STEP_ORDER.exec(v)! as unknown as [string, string, string, string];
      const val = (x: CondCtx, n: string): number | undefined =>
        n === "now" ? x.now : x.ps.steps[n];
      return (x) => {
        const va = val(x, a);
        const vb = val(x, b);
        return va !== undefined && vb !== undefined && cmp(va, op, vb);
      };
    },
  }),
  count: atom({
    shape: (s) =>
      s.z.string().regex(COUNT_CMP, "expected a counter comparison such as `edits >= 1`"),
    description: 'a counter comparison: "edits >= 1", "same_error >= 3"',
    compile: (c) => {
      const [, name, op, n] = COUNT_CMP.exec(c)! as unknown as [string, string, string, string];
      const v = Number(n);
      return ({ ps }) => cmp(ps.counters[name] ?? 0, op, v);
    },
  }),
  captured: atom({
    shape: (s) => s.Names,
    description: "the named values list captured something from the task text",
    values: (v) => list(v).map((name) => ({ name, at: [] })),
    compile: (v) => {
      const names = list(v);
      return ({ ps }) => names.every((n) => (ps.values?.[n]?.length ?? 0) > 0);
    },
  }),
  unmarked: atom({
    shape: (s) => s.z.strictObject({ values: s.Name, as: s.Name, markedAs: s.Name.optional() }),
    description: "{values, as, markedAs?}: some captured value is not marked",
    values: (v) => [{ name: v.values, at: ["values"] }],
    compile:
      ({ values, as, markedAs }) =>
      ({ ps }) => {
        const marked = ps.marks?.[as] ?? [];
        const also = markedAs === undefined ? undefined : (ps.marks?.[markedAs] ?? []);
        return (ps.values?.[values] ?? []).some(
          (v) => !marked.includes(v) && (also === undefined || also.includes(v)),
        );
      },
  }),
  mentions: atom({
    shape: (s) =>
      s.z.strictObject({
        values: s.Name,
        match: s.MatchMode.optional(),
        unless: s.Name.optional(),
      }),
    description: "{values, match?, unless?}: the current tool call uses a captured value",
    values: (v) => [{ name: v.values, at: ["values"] }],
    costly: true,
    compile: ({ values, unless, match }) => {
      const mode = match ?? "path";
      return ({ ev, ps }) => {
        const skip = unless === undefined ? [] : (ps.marks?.[unless] ?? []);
        return (ps.values?.[values] ?? []).some(
          (v) => !skip.includes(v) && eventMentions(ev, v, mode),
        );
      };
    },
  }),
  elapsed: atom({
    shape: (s) => s.z.strictObject({ share: s.z.number().positive().max(1), of: s.Name }),
    description:
      "{share, of}: time since the first event is at least share (0-1] of the time limit captured in values list of",
    values: (v) => [{ name: v.of, at: ["of"] }],
    compile:
      ({ share, of }) =>
      ({ ps, elapsedS }) => {
        const limit = limitOf(ps, of);
        return elapsedS !== undefined && limit !== undefined && elapsedS >= share * limit;
      },
  }),
  timed: atom({
    shape: (s) => s.Name,
    description: "the named values list captured a time limit and events carry timestamps",
    values: (v) => [{ name: v, at: [] }],
    compile:
      (of) =>
      ({ ps, elapsedS }) =>
        elapsedS !== undefined && limitOf(ps, of) !== undefined,
  }),
};

export type AtomName = keyof typeof CONDITION_ATOMS;

/** The value an atom takes in a condition, as its shape infers it. */
export type AtomValue<K extends AtomName> = z.infer<
  ReturnType<(typeof CONDITION_ATOMS)[K]["shape"]>
>;

/** Every atom a condition may hold, each optional: the atom half of `Condition`. */
export type ConditionAtoms = { [K in AtomName]?: AtomValue<K> };

/** The atoms that hold a pattern. */
export type PatternAtom = {
  [K in AtomName]: (typeof CONDITION_ATOMS)[K]["pattern"] extends true ? K : never;
}[AtomName];

const ATOMS = Object.entries(CONDITION_ATOMS) as [AtomName, AtomRecord<z.ZodType>][];

/** The atoms that hold a pattern, in registry order (the pattern walkers read these). */
export const PATTERN_ATOMS = ATOMS.filter(([, a]) => a.pattern).map(([k]) => k) as PatternAtom[];

/** The combinators a condition may nest (not atoms). */
export const COMBINATORS = {
  all: "every sub-condition holds",
  any: "some sub-condition holds",
  not: "the sub-condition does not hold",
} as const;

/** A condition's direct sub-conditions with their path below it (all, any, not). */
export function subConditions(c: Condition): [(string | number)[], Condition][] {
  return [
    ...(c.all ?? []).map((s, i): [(string | number)[], Condition] => [["all", i], s]),
    ...(c.any ?? []).map((s, i): [(string | number)[], Condition] => [["any", i], s]),
    ...(c.not ? [[["not"], c.not] as [(string | number)[], Condition]] : []),
  ];
}

/** The condition keys and what each means, one line (the drafter's description). */
export function conditionKeysText(): string {
  return [
    ...ATOMS.map(([k, a]) => `${k} (${a.description})`),
    ...Object.entries(COMBINATORS).map(([k, d]) => `${k} (${d})`),
  ].join("; ");
}

/** The table of condition keys in docs/policy-language.md (written by `npm run docs`). */
export function conditionKeysTable(): string {
  const cell = (s: string) => s.replace(/\|/g, "\\|");
  return [
    "| key | holds when |",
    "| --- | --- |",
    ...ATOMS.map(([k, a]) => `| \`${k}\` | ${cell(a.description)} |`),
    ...Object.entries(COMBINATORS).map(([k, d]) => `| \`${k}\` | ${cell(d)} |`),
  ].join("\n");
}

const TABLE_START =
  "<!-- condition keys: generated by `npm run docs` from src/core/policy/atoms.ts; do not edit -->";
const TABLE_END = "<!-- end of condition keys -->";

/** A document with its generated condition-keys table (between its markers) made fresh. */
export function withConditionKeysTable(doc: string): string {
  const a = doc.indexOf(TABLE_START);
  const b = doc.indexOf(TABLE_END);
  if (a < 0 || b < a) throw new Error("no condition-keys table markers in the document");
  return `${doc.slice(0, a + TABLE_START.length)}\n${conditionKeysTable()}\n${doc.slice(b)}`;
}

/**
 * The predicates of a condition's atoms, cheap state and kind tests first, text and value
 * tests after (the conjunction short-circuits); the combinators are the caller's.
 */
export function atomPredicates(c: Condition, h: (key: AtomName) => AtomCompiler): Pred[] {
  const cheap: Pred[] = [];
  const costly: Pred[] = [];
  for (const [k, a] of ATOMS) {
    const v = c[k];
    if (v === undefined) continue;
    (a.costly ? costly : cheap).push(a.compile(v, h(k)));
  }
  return cheap.concat(costly);
}

/** Every values-list name a condition (and its sub-conditions) reads, with its path. */
export function conditionValueRefs(
  c: Condition,
  path: (string | number)[],
  known: (name: string, path: (string | number)[]) => void,
): void {
  for (const [key, a] of ATOMS) {
    const v = c[key];
    if (v === undefined || !a.values) continue;
    for (const r of a.values(v)) known(r.name, [...path, key, ...r.at]);
  }
  for (const [at, s] of subConditions(c)) conditionValueRefs(s, [...path, ...at], known);
}
