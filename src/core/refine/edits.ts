import type { Candidate, Condition, Pattern, TrackRule } from "../policy/schema.js";

/**
 * The bounded edits a refinement is made of: each takes a candidate and returns a changed
 * copy (never the input mutated) with a sentence saying what changed. Every edit is a
 * mechanism-level change — a condition dropped, a tracked prior state required, a release
 * added or dropped, a pattern loosened — or an eligibility phrase the caller has already
 * checked for generality (phrases.ts). None names a task, a trial or a file of the corpus.
 */

export type RefineKind = "eligibility" | "trigger" | "release" | "pattern";
export type Direction = "narrow" | "widen";

export interface Edit {
  kind: RefineKind;
  direction: Direction;
  /** What the edit does, in the words shown to the user. */
  summary: string;
  apply: (c: Candidate) => Candidate;
}

const clone = <T>(x: T): T => structuredClone(x);

/** Keys of a condition that are one conjunct each (`all` items count one by one). */
const CONJUNCT_KEYS = [
  "kind",
  "role",
  "tool",
  "command",
  "input",
  "output",
  "text",
  "writes",
  "exitCode",
  "isError",
  "status",
  "flag",
  "unset",
  "recorded",
  "steps",
  "count",
  "captured",
  "unmarked",
  "mentions",
  "elapsed",
  "timed",
  "any",
  "not",
] as const satisfies readonly (keyof Condition)[];

const show = (v: unknown): string => {
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
};

/** Every way to drop one conjunct of a condition: [what, the condition without it]. */
export function dropOne(c: Condition): [string, Condition][] {
  const out: [string, Condition][] = [];
  for (const k of CONJUNCT_KEYS) {
    if (c[k] === undefined) continue;
    const rest = clone(c);
    delete rest[k];
    out.push([`${k}: ${show(c[k])}`, rest]);
  }
  (c.all ?? []).forEach((sub, i) => {
    const rest = clone(c);
    rest.all = (c.all ?? []).filter((_, j) => j !== i);
    if (rest.all.length === 0) delete rest.all;
    out.push([show(sub), rest]);
  });
  return out;
}

/** `when` with `extra` required as well (an absent `when` becomes `extra`). */
export function requireAlso(when: Condition | undefined, extra: Condition): Condition {
  if (!when || Object.keys(when).length === 0) return extra;
  return { all: [clone(when), extra] };
}

/** The condition with every top-level pattern made case-insensitive (undefined: nothing to do). */
function caseInsensitive(c: Condition): Condition | undefined {
  let changed = false;
  const out = clone(c);
  for (const k of ["tool", "command", "input", "output", "text", "writes"] as const) {
    const p = out[k];
    if (p === undefined) continue;
    const obj = typeof p === "string" ? { pattern: p } : p;
    if ((obj.flags ?? "").includes("i")) continue;
    out[k] = { pattern: obj.pattern, flags: `${obj.flags ?? ""}i` } as Pattern;
    changed = true;
  }
  return changed ? out : undefined;
}

/** The condition with its command pattern matched against any text of the call. */
function commandAsText(c: Condition): Condition | undefined {
  if (c.command === undefined || c.text !== undefined) return undefined;
  const { command, ...rest } = clone(c);
  return { ...rest, text: command };
}

/**
 * The rule's counter threshold moved: `edits >= 4` → 3 and 2 (looser: fires earlier) or → 5
 * and 8 (stricter), for the comparisons where a lower number fires sooner (>=, >, ==).
 */
function countVariants(c: Condition, direction: Direction): [string, Condition][] {
  const m = c.count === undefined ? null : /^\s*(\S+)\s*(>=|>|==)\s*(\d+)\s*$/.exec(c.count);
  if (!m) return [];
  const n = Number(m[3]);
  const to =
    direction === "widen"
      ? [n - 1, Math.ceil(n / 2)].filter((x) => x >= 1 && x < n)
      : [n + 1, n * 2].filter((x) => x > n);
  return [...new Set(to)].map((x) => [
    `${m[1]} ${m[2]} ${x}`,
    { ...clone(c), count: `${m[1]} ${m[2]} ${x}` },
  ]);
}

/** A tracked prior state the refiner may require (or forbid) before a rule fires. */
export interface PriorState {
  /** The flag the tracking rule sets (prefixed so it never collides with the candidate's). */
  flag: string;
  /** What held, for people ("a file was written"). */
  label: string;
  track: TrackRule;
}

/**
 * Generic prior states, from mechanisms every agent trace shows: a path written, a tool call
 * that failed, a check run, a service launched in the background. Fixed patterns, never learnt
 * from the corpus.
 */
export const PRIOR_STATES: readonly PriorState[] = [
  {
    flag: "prior_wrote",
    label: "a file was written",
    track: { id: "prior-wrote", at: "tool", when: { writes: "." }, set: "prior_wrote" },
  },
  {
    flag: "prior_failed",
    label: "a tool call failed",
    track: {
      id: "prior-failed",
      at: "tool_result",
      when: { status: "failed" },
      set: "prior_failed",
    },
  },
  {
    flag: "prior_checked",
    label: "a check ran (tests, a probe, a comparison)",
    track: {
      id: "prior-checked",
      at: "tool",
      when: {
        command: {
          pattern:
            "\\b(pytest|unittest|npm\\s+(run\\s+)?test|go\\s+test|cargo\\s+test|make\\s+(test|check)|curl|wget|diff|cmp|sha\\d*sum|md5sum)\\b",
        },
      },
      set: "prior_checked",
    },
  },
  {
    flag: "prior_launched",
    label: "a process was started in the background",
    track: {
      id: "prior-launched",
      at: "tool",
      when: {
        command: {
          pattern:
            "&\\s*$|\\b(nohup|setsid|daemonize)\\b|--daemon\\b|\\bsystemctl\\s+(re)?start\\b|\\bservice\\s+\\S+\\s+(re)?start\\b|\\bdocker\\s+(run|compose\\s+up)\\b",
          flags: "m",
        },
      },
      set: "prior_launched",
    },
  },
];

/** Flags and recorded steps the candidate itself tracks (its own notion of prior state). */
function ownStates(c: Candidate): { flags: string[]; steps: string[] } {
  const list = (v: string | string[] | undefined) =>
    v === undefined ? [] : typeof v === "string" ? [v] : v;
  const flags = new Set<string>();
  const steps = new Set<string>();
  for (const t of c.track) {
    for (const f of list(t.set)) flags.add(f);
    for (const s of [...list(t.record), ...list(t.recordFirst)]) steps.add(s);
  }
  return { flags: [...flags].sort(), steps: [...steps].sort() };
}

const withTrack = (c: Candidate, t: TrackRule): Candidate =>
  c.track.some((x) => x.id === t.id) ? c : { ...c, track: [...c.track, clone(t)] };

/** Edits that make rules fire less: require a prior state, or release on one. */
export function narrowingTriggerEdits(c: Candidate): Edit[] {
  const out: Edit[] = [];
  const own = ownStates(c);
  const requirements: { cond: Condition; label: string; track?: TrackRule }[] = [
    ...own.flags.flatMap((f) => [
      { cond: { flag: f }, label: `flag ${f} is set` },
      { cond: { unset: f }, label: `flag ${f} is not set` },
    ]),
    ...own.steps.map((s) => ({ cond: { recorded: s }, label: `step ${s} was recorded` })),
    ...PRIOR_STATES.flatMap((p) => [
      { cond: { flag: p.flag }, label: p.label, track: p.track },
      { cond: { unset: p.flag }, label: `not yet: ${p.label}`, track: p.track },
    ]),
  ];
  c.rules.forEach((r, i) => {
    for (const [what, when] of r.when ? countVariants(r.when, "narrow") : [])
      out.push({
        kind: "trigger",
        direction: "narrow",
        summary: `rule ${r.id} fires at ${what} (was ${r.when?.count})`,
        apply: (x) => ({
          ...x,
          rules: x.rules.map((rr, j) => (j === i ? { ...rr, when } : rr)),
        }),
      });
    for (const q of requirements) {
      out.push({
        kind: "trigger",
        direction: "narrow",
        summary: `rule ${r.id} fires only when ${q.label}`,
        apply: (x) => {
          const y = q.track ? withTrack(x, q.track) : clone(x);
          const rules = y.rules.map((rr, j) =>
            j === i ? { ...rr, when: requireAlso(rr.when, q.cond) } : rr,
          );
          return { ...y, rules };
        },
      });
      if (q.cond.flag !== undefined)
        out.push({
          kind: "release",
          direction: "narrow",
          summary: `rule ${r.id} is released once ${q.label}`,
          apply: (x) => {
            const y = q.track ? withTrack(x, q.track) : clone(x);
            const rules = y.rules.map((rr, j) =>
              j === i
                ? {
                    ...rr,
                    release: rr.release ? { any: [clone(rr.release), q.cond] } : q.cond,
                  }
                : rr,
            );
            return { ...y, rules };
          },
        });
    }
  });
  return out;
}

/** Edits that make rules fire more: drop a requirement, a release, or loosen a pattern. */
export function wideningTriggerEdits(c: Candidate): Edit[] {
  const out: Edit[] = [];
  c.rules.forEach((r, i) => {
    const setRule = (x: Candidate, rule: Candidate["rules"][number]): Candidate => ({
      ...x,
      rules: x.rules.map((rr, j) => (j === i ? rule : rr)),
    });
    if (r.when) {
      for (const [what, rest] of dropOne(r.when))
        out.push({
          kind: "trigger",
          direction: "widen",
          summary: `rule ${r.id} no longer requires ${what}`,
          apply: (x) => setRule(x, { ...x.rules[i]!, when: rest }),
        });
      const ci = caseInsensitive(r.when);
      if (ci)
        out.push({
          kind: "pattern",
          direction: "widen",
          summary: `rule ${r.id}'s patterns ignore case`,
          apply: (x) => setRule(x, { ...x.rules[i]!, when: ci }),
        });
      const ct = commandAsText(r.when);
      if (ct)
        out.push({
          kind: "pattern",
          direction: "widen",
          summary: `rule ${r.id}'s command pattern also matches the call's input and output`,
          apply: (x) => setRule(x, { ...x.rules[i]!, when: ct }),
        });
      for (const [what, when] of countVariants(r.when, "widen"))
        out.push({
          kind: "trigger",
          direction: "widen",
          summary: `rule ${r.id} fires at ${what} (was ${r.when.count})`,
          apply: (x) => setRule(x, { ...x.rules[i]!, when }),
        });
    }
    if (r.release) {
      const { release: _r, ...rest } = r;
      out.push({
        kind: "release",
        direction: "widen",
        summary: `rule ${r.id} is no longer released by ${show(r.release)}`,
        apply: (x) => setRule(x, clone(rest)),
      });
      for (const [what, sub] of dropOne(r.release))
        if (Object.keys(sub).length > 0)
          out.push({
            kind: "release",
            direction: "narrow",
            summary: `rule ${r.id}'s release no longer requires ${what} (released more often)`,
            apply: (x) => setRule(x, { ...x.rules[i]!, release: sub }),
          });
    }
  });
  c.track.forEach((t, i) => {
    const setTrack = (x: Candidate, when: Condition): Candidate => ({
      ...x,
      track: x.track.map((tt, j) => (j === i ? { ...tt, when } : tt)),
    });
    if (!t.when) return;
    for (const [what, rest] of dropOne(t.when))
      if (Object.keys(rest).length > 0)
        out.push({
          kind: "trigger",
          direction: "widen",
          summary: `tracking ${t.id} no longer requires ${what}`,
          apply: (x) => setTrack(x, rest),
        });
    const ci = caseInsensitive(t.when);
    if (ci)
      out.push({
        kind: "pattern",
        direction: "widen",
        summary: `tracking ${t.id}'s patterns ignore case`,
        apply: (x) => setTrack(x, ci),
      });
    const ct = commandAsText(t.when);
    if (ct)
      out.push({
        kind: "pattern",
        direction: "widen",
        summary: `tracking ${t.id}'s command pattern also matches the call's input and output`,
        apply: (x) => setTrack(x, ct),
      });
  });
  return out;
}

/** Eligibility edits that route more tasks: drop one allOf pattern, or the anyOf list. */
export function wideningEligibilityEdits(c: Candidate): Edit[] {
  const out: Edit[] = [];
  c.eligibility.allOf.forEach((p, i) => {
    out.push({
      kind: "eligibility",
      direction: "widen",
      summary: `eligibility no longer requires ${show(p)}`,
      apply: (x) => ({
        ...x,
        eligibility: { ...x.eligibility, allOf: x.eligibility.allOf.filter((_, j) => j !== i) },
      }),
    });
  });
  c.eligibility.noneOf.forEach((p, i) => {
    out.push({
      kind: "eligibility",
      direction: "widen",
      summary: `eligibility no longer excludes ${show(p)}`,
      apply: (x) => ({
        ...x,
        eligibility: { ...x.eligibility, noneOf: x.eligibility.noneOf.filter((_, j) => j !== i) },
      }),
    });
  });
  return out;
}

/** An eligibility phrase edit (the phrase was checked for generality by the caller). */
export function phraseEdit(
  list: "allOf" | "anyOf" | "noneOf",
  pattern: Pattern,
  label: string,
): Edit {
  const verb =
    list === "allOf"
      ? "eligibility also requires"
      : list === "anyOf"
        ? "eligibility also accepts"
        : "eligibility excludes";
  return {
    kind: "eligibility",
    direction: list === "anyOf" ? "widen" : "narrow",
    summary: `${verb} ${label}`,
    apply: (x) => ({
      ...x,
      eligibility: { ...x.eligibility, [list]: [...x.eligibility[list], clone(pattern)] },
    }),
  };
}
