import {
  CompileError,
  compileCondition,
  compileRegex,
  type LiteralsOf,
  type Pred,
} from "./condition.js";
import { ESCALATE_CAP } from "./grammar.js";
import { policyKey } from "./key.js";
import { admittedRegExp } from "./linear-engine.js";
import { necessaryLiterals } from "./prefilter.js";
import { linearRegExp } from "./regex.js";
import type { Candidate } from "./schema.js";
import type { CompiledPolicy, CompiledRule, CompiledTrack, RulePoint } from "./types.js";

export { CompileError };

const names = (v: string | string[] | undefined): string[] =>
  v === undefined ? [] : typeof v === "string" ? [v] : v;

/**
 * Compiles a validated candidate: every pattern compiled once (a bad one throws CompileError
 * with its field path); condition patterns sit behind their literal prefilter (prefilter.ts). Pattern SAFETY is checked separately (safety.ts) so a hash-verified
 * frozen portfolio can skip it on the hook's hot path.
 */
export function compilePolicy(
  c: Candidate,
  file?: string,
  opts: { admitted?: boolean; literals?: LiteralsOf; lazy?: boolean } = {},
): CompiledPolicy {
  const compile = opts.admitted ? admittedRegExp : linearRegExp;
  // admitted patterns come from a cache or payload: their prefilters come with them (or none)
  const lits = opts.literals ?? (opts.admitted ? undefined : necessaryLiterals);
  // lazy (admitted patterns only, the hook): a condition or pattern is compiled the first
  // time an event needs it, so an event pays only for what it evaluates
  const lazy = opts.lazy === true && opts.admitted === true;
  const cond = (x: Parameters<typeof compileCondition>[0], path: (string | number)[]) =>
    lazy
      ? lazyPred(() => compileCondition(x, path, compile, lits))
      : compileCondition(x, path, compile, lits);
  const re = (p: Candidate["eligibility"]["allOf"][number], path: (string | number)[]) =>
    compileRegex(p, path, compile);
  const list = (k: "allOf" | "anyOf" | "noneOf") => () =>
    c.eligibility[k].map((p, i) => re(p, ["eligibility", k, i]));
  const eligibility = lazy
    ? lazyFields({ allOf: list("allOf"), anyOf: list("anyOf"), noneOf: list("noneOf") })
    : { allOf: list("allOf")(), anyOf: list("anyOf")(), noneOf: list("noneOf")() };
  const track: CompiledTrack[] = c.track.map((t, i) => ({
    id: t.id,
    at:
      t.at === undefined ? undefined : new Set<RulePoint>(typeof t.at === "string" ? [t.at] : t.at),
    when: cond(t.when, ["track", i, "when"]),
    set: names(t.set),
    clear: names(t.clear),
    record: names(t.record),
    recordFirst: names(t.recordFirst),
    increment: names(t.increment),
    mark: (t.mark === undefined ? [] : Array.isArray(t.mark) ? t.mark : [t.mark]).map((m) => ({
      values: m.values,
      as: m.as,
      mode: m.match ?? "path",
    })),
    ...(t.streak ? { streak: { counter: t.streak.counter, key: t.streak.key ?? "output" } } : {}),
  }));
  // a hook cache written before task values existed has none
  const values = (c.values ?? []).map((v, i) => {
    const make = () => re(v.pattern, ["values", i, "pattern"]);
    return lazy ? { id: v.id, ...lazyFields({ re: make }) } : { id: v.id, re: make() };
  });
  const rules: Record<RulePoint, CompiledRule[]> = {
    prompt: [],
    tool: [],
    tool_result: [],
    stop: [],
  };
  const blockers: CompiledRule[] = [];
  c.rules.forEach((r, i) => {
    const escalate = r.escalate
      ? { after: r.escalate.after, action: r.escalate.action, cap: r.escalate.cap ?? ESCALATE_CAP }
      : undefined;
    const rule: CompiledRule = {
      id: r.id,
      at: r.at,
      when: cond(r.when, ["rules", i, "when"]),
      action: r.action,
      message: r.message,
      limit: r.nudgeLimit ?? (r.release ? Number.POSITIVE_INFINITY : 1),
      release: r.release ? cond(r.release, ["rules", i, "release"]) : undefined,
      ...(escalate ? { escalate } : {}),
    };
    rules[r.at].push(rule);
    if (escalate?.action === "block" && r.at !== "stop") blockers.push(rule);
  });
  const policy: CompiledPolicy = {
    id: c.id,
    key: policyKey(c),
    version: c.version,
    family: c.family,
    file,
    eligibility,
    values,
    track,
    rules,
    behavior: cond(c.behavior, ["behavior"]),
    mode: c.mode ?? "enforce",
    blockers,
    candidate: c,
  };
  return policy;
}

/** A predicate compiled on its first call (then kept). */
function lazyPred(make: () => Pred): Pred {
  let p: Pred | undefined;
  return (x) => {
    p ??= make();
    return p(x);
  };
}

/** An object whose fields are computed on first read (then kept as plain values). */
function lazyFields<T extends Record<string, unknown>>(makers: { [K in keyof T]: () => T[K] }): T {
  const out = {} as T;
  for (const k of Object.keys(makers) as (keyof T)[])
    Object.defineProperty(out, k, {
      enumerable: true,
      configurable: true,
      get() {
        const v = makers[k]();
        Object.defineProperty(out, k, { value: v, enumerable: true, writable: false });
        return v;
      },
    });
  return out;
}
