import type { Event } from "../model/attempt.js";
import { exitStatus } from "../model/exit-status.js";
import { checkBudget } from "./budget.js";
import { COUNT_CMP, STEP_ORDER } from "./grammar.js";
import { patternParts } from "./patterns.js";
import { type Literals, prefiltered, type Tester } from "./prefilter.js";
import { linearRegExp, PatternError } from "./regex.js";
import type { Condition, Pattern } from "./schema.js";
import type { PolicyState } from "./types.js";
import { durationSeconds, eventMentions } from "./values.js";

/** What a compiled condition sees: the (length-capped) event, the policy's state, the step. */
export interface CondCtx {
  ev: Event;
  ps: PolicyState;
  now: number;
  /** Seconds since the session's first timestamped event, when this event has a timestamp. */
  elapsedS?: number;
}

/** The time limit (seconds) the task text states: the first duration captured in `of`. */
function limitOf(ps: PolicyState, of: string): number | undefined {
  for (const v of ps.values?.[of] ?? []) {
    const s = durationSeconds(v);
    if (s !== undefined) return s;
  }
  return undefined;
}
export type Pred = (c: CondCtx) => boolean;

/** Thrown when a condition cannot be compiled; `path` is the field path inside the condition. */
export class CompileError extends Error {
  constructor(
    readonly path: (string | number)[],
    message: string,
  ) {
    super(message);
    this.name = "CompileError";
  }
}

/**
 * Compiles one pattern: `linearRegExp` admits it (regex.ts: linear time, `i` expanded);
 * `admittedRegExp` takes a pattern already stored in that form (the hook's hot path).
 */
export type PatternCompiler = (source: string, flags: string) => RegExp;

/** A pattern's literal prefilter (prefilter.ts), when one is known; undefined: always run. */
export type LiteralsOf = (source: string, flags: string) => Literals | undefined;

/** Compiles a pattern for a condition atom: the regex, behind its prefilter when it has one. */
function tester(
  p: Pattern,
  path: (string | number)[],
  compile: PatternCompiler,
  literalsOf: LiteralsOf | undefined,
): Tester {
  const re = compileRegex(p, path, compile);
  if (!literalsOf) return re;
  const { source, flags } = patternParts(p);
  const literals = literalsOf(source, flags);
  return literals ? prefiltered(re, literals) : re;
}

export function compileRegex(
  p: Pattern,
  path: (string | number)[],
  compile: PatternCompiler = linearRegExp,
): RegExp {
  const { source, flags } = patternParts(p);
  try {
    return compile(source, flags);
  } catch (e) {
    const message = (e as Error).message;
    throw new CompileError(
      path,
      e instanceof PatternError
        ? message
        : `pattern /${source}/${flags} does not compile: ${message}`,
    );
  }
}

const TRUE: Pred = () => true;
const list = (v: string | string[]): string[] => (typeof v === "string" ? [v] : v);

function cmp(a: number, op: string, b: number): boolean {
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

function fieldPred(field: "tool" | "command" | "input" | "output", re: Tester): Pred {
  return (c) => {
    const s = c.ev[field];
    if (s === undefined) return false;
    checkBudget();
    return re.test(s);
  };
}

function atoms(
  c: Condition,
  path: (string | number)[],
  compile: PatternCompiler,
  literalsOf: LiteralsOf | undefined,
): Pred[] {
  // Cheap state/kind tests first, regexes and sub-trees after: the conjunction short-circuits.
  const out: Pred[] = [];
  const costly: Pred[] = [];
  if (c.kind !== undefined) {
    const kinds = new Set<string>(list(c.kind));
    out.push((x) => kinds.has(x.ev.kind));
  }
  if (c.role !== undefined) {
    const role = c.role;
    out.push((x) => x.ev.role === role);
  }
  for (const f of ["tool", "command", "input", "output"] as const) {
    const p = c[f];
    if (p !== undefined) costly.push(fieldPred(f, tester(p, [...path, f], compile, literalsOf)));
  }
  if (c.text !== undefined) {
    const re = tester(c.text, [...path, "text"], compile, literalsOf);
    costly.push(
      ({ ev }) =>
        (checkBudget(), ev.command !== undefined && re.test(ev.command)) ||
        (ev.input !== undefined && re.test(ev.input)) ||
        (ev.output !== undefined && re.test(ev.output)),
    );
  }
  if (c.writes !== undefined) {
    const re = tester(c.writes, [...path, "writes"], compile, literalsOf);
    costly.push(({ ev }) => (checkBudget(), ev.writes?.some((w) => re.test(w)) === true));
  }
  if (c.exitCode !== undefined) {
    const t = c.exitCode;
    const tests: [string, number][] =
      typeof t === "number"
        ? [["==", t]]
        : (
            [
              ["==", t.eq],
              ["!=", t.ne],
              ["<", t.lt],
              ["<=", t.le],
              [">", t.gt],
              [">=", t.ge],
            ] as [string, number | undefined][]
          ).filter((e): e is [string, number] => e[1] !== undefined);
    out.push(
      ({ ev }) => ev.exitCode !== undefined && tests.every(([op, v]) => cmp(ev.exitCode!, op, v)),
    );
  }
  if (c.isError !== undefined) {
    const want = c.isError;
    out.push(({ ev }) => (ev.isError ?? false) === want);
  }
  if (c.status !== undefined) {
    const want = new Set<string>(list(c.status));
    out.push(({ ev }) => ev.kind === "tool_result" && want.has(exitStatus(ev)));
  }
  if (c.flag !== undefined) {
    const names = list(c.flag);
    out.push(({ ps }) => names.every((n) => ps.flags[n] === true));
  }
  if (c.unset !== undefined) {
    const names = list(c.unset);
    out.push(({ ps }) => names.every((n) => ps.flags[n] !== true));
  }
  if (c.recorded !== undefined) {
    const names = list(c.recorded);
    out.push(({ ps }) => names.every((n) => ps.steps[n] !== undefined));
  }
  if (c.steps !== undefined) {
    const m = STEP_ORDER.exec(c.steps)!;
    const [, a, op, b] = m as unknown as [string, string, string, string];
    const val = (x: CondCtx, n: string): number | undefined =>
      n === "now" ? x.now : x.ps.steps[n];
    out.push((x) => {
      const va = val(x, a);
      const vb = val(x, b);
      return va !== undefined && vb !== undefined && cmp(va, op, vb);
    });
  }
  if (c.count !== undefined) {
    const [, name, op, n] = COUNT_CMP.exec(c.count)! as unknown as [string, string, string, string];
    const v = Number(n);
    out.push(({ ps }) => cmp(ps.counters[name] ?? 0, op, v));
  }
  if (c.captured !== undefined) {
    const names = list(c.captured);
    out.push(({ ps }) => names.every((n) => (ps.values?.[n]?.length ?? 0) > 0));
  }
  if (c.unmarked !== undefined) {
    const { values, as, markedAs } = c.unmarked;
    out.push(({ ps }) => {
      const marked = ps.marks?.[as] ?? [];
      const also = markedAs === undefined ? undefined : (ps.marks?.[markedAs] ?? []);
      return (ps.values?.[values] ?? []).some(
        (v) => !marked.includes(v) && (also === undefined || also.includes(v)),
      );
    });
  }
  if (c.mentions !== undefined) {
    const { values, unless } = c.mentions;
    const mode = c.mentions.match ?? "path";
    costly.push(({ ev, ps }) => {
      const skip = unless === undefined ? [] : (ps.marks?.[unless] ?? []);
      return (ps.values?.[values] ?? []).some(
        (v) => !skip.includes(v) && eventMentions(ev, v, mode),
      );
    });
  }
  if (c.elapsed !== undefined) {
    const { share, of } = c.elapsed;
    out.push(({ ps, elapsedS }) => {
      const limit = limitOf(ps, of);
      return elapsedS !== undefined && limit !== undefined && elapsedS >= share * limit;
    });
  }
  if (c.timed !== undefined) {
    const of = c.timed;
    out.push(({ ps, elapsedS }) => elapsedS !== undefined && limitOf(ps, of) !== undefined);
  }
  if (c.all !== undefined) {
    costly.push(
      ...c.all.map((s, i) => compileCondition(s, [...path, "all", i], compile, literalsOf)),
    );
  }
  if (c.any !== undefined) {
    const subs = c.any.map((s, i) => compileCondition(s, [...path, "any", i], compile, literalsOf));
    costly.push((x) => subs.some((p) => p(x)));
  }
  if (c.not !== undefined) {
    const sub = compileCondition(c.not, [...path, "not"], compile, literalsOf);
    costly.push((x) => !sub(x));
  }
  return out.concat(costly);
}

/** Compiles a condition tree into one predicate; every pattern compiled once, here. */
export function compileCondition(
  c: Condition | undefined,
  path: (string | number)[],
  compile: PatternCompiler = linearRegExp,
  literalsOf?: LiteralsOf,
): Pred {
  if (c === undefined) return TRUE;
  const ps = atoms(c, path, compile, literalsOf);
  if (ps.length === 0) return TRUE;
  if (ps.length === 1) return ps[0]!;
  if (ps.length === 2) {
    const [a, b] = ps as [Pred, Pred];
    return (x) => a(x) && b(x);
  }
  return (x) => {
    for (const p of ps) if (!p(x)) return false;
    return true;
  };
}
