import type { Event } from "../model/attempt.js";
import { atomPredicates } from "./atoms.js";
import { patternParts } from "./patterns.js";
import { type Literals, prefiltered, type Tester } from "./prefilter.js";
import { linearRegExp, PatternError } from "./regex.js";
import type { Condition, Pattern } from "./schema.js";
import type { PolicyState } from "./types.js";

/** What a compiled condition sees: the (length-capped) event, the policy's state, the step. */
export interface CondCtx {
  ev: Event;
  ps: PolicyState;
  now: number;
  /** Seconds since the session's first timestamped event, when this event has a timestamp. */
  elapsedS?: number;
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

/**
 * A condition's predicates: its atoms' (the registry's meanings, atoms.ts), then its
 * sub-conditions'. Cheap state and kind tests run first, regexes and sub-trees after: the
 * conjunction short-circuits.
 */
function predicates(
  c: Condition,
  path: (string | number)[],
  compile: PatternCompiler,
  literalsOf: LiteralsOf | undefined,
): Pred[] {
  const out = atomPredicates(c, (key) => ({
    tester: (p) => tester(p, [...path, key], compile, literalsOf),
  }));
  if (c.all !== undefined) {
    out.push(...c.all.map((s, i) => compileCondition(s, [...path, "all", i], compile, literalsOf)));
  }
  if (c.any !== undefined) {
    const subs = c.any.map((s, i) => compileCondition(s, [...path, "any", i], compile, literalsOf));
    out.push((x) => subs.some((p) => p(x)));
  }
  if (c.not !== undefined) {
    const sub = compileCondition(c.not, [...path, "not"], compile, literalsOf);
    out.push((x) => !sub(x));
  }
  return out;
}

/** Compiles a condition tree into one predicate; every pattern compiled once, here. */
export function compileCondition(
  c: Condition | undefined,
  path: (string | number)[],
  compile: PatternCompiler = linearRegExp,
  literalsOf?: LiteralsOf,
): Pred {
  if (c === undefined) return TRUE;
  const ps = predicates(c, path, compile, literalsOf);
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
