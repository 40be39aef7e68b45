import { z } from "zod";
import { EventKind } from "../model/attempt.js";
import { EXIT_STATUSES } from "../model/exit-status.js";
import { CONDITION_ATOMS, type ConditionAtoms, conditionValueRefs } from "./atoms.js";
import { ESCALATE_CAP } from "./grammar.js";

export { ESCALATE_CAP };

/**
 * The candidate-policy file format (`candidates/**\/*.json|yaml`): P = (E, G, A, R, S) plus
 * identity, lifecycle and the registered chain. Declarative data only: no predicate can name a
 * task id or read a file; conditions see the current event and the policy's own session state.
 */

const NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const Name = z.string().regex(NAME, "expected a name of letters, digits, _ or - (e.g. launched)");
const Names = z.union([Name, z.array(Name).min(1)]);

/** Regex flags allowed on a pattern: stateless ones only (no g / y). */
export const PatternFlags = z
  .string()
  .regex(/^(?!.*(.).*\1)[imsu]*$/, "expected flags from i, m, s, u (each at most once)");

/** A regular expression: a bare string, or `{pattern, flags}`. */
export const Pattern = z.union([
  z.string().min(1),
  z.strictObject({ pattern: z.string().min(1), flags: PatternFlags.optional() }),
]);
export type Pattern = z.infer<typeof Pattern>;

export const RULE_POINTS = ["prompt", "tool", "tool_result", "stop"] as const;
export const RulePointSchema = z.enum(RULE_POINTS);

const NumberTest = z.union([
  z.number().int(),
  z
    .strictObject({
      eq: z.number().int().optional(),
      ne: z.number().int().optional(),
      lt: z.number().int().optional(),
      le: z.number().int().optional(),
      gt: z.number().int().optional(),
      ge: z.number().int().optional(),
    })
    .refine((o) => Object.keys(o).length > 0, "expected at least one of eq, ne, lt, le, gt, ge"),
]);

/**
 * How a task value is looked up in a tool call: as a path (default), by its file name only,
 * or as what the call writes (see core/policy/values.ts).
 */
export const MatchMode = z.enum(["path", "name", "written"]);

/** The building blocks an atom's shape is made of (atoms.ts builds no zod itself). */
const SHAPES = {
  z,
  Pattern,
  Name,
  Names,
  NumberTest,
  MatchMode,
  EventKind,
  ExitStatus: z.enum(EXIT_STATUSES),
};
export type AtomShapes = typeof SHAPES;

/**
 * A condition: every key present must hold (an empty object always holds). Its atoms, their
 * shapes and meanings are the registry's (atoms.ts); all / any / not nest conditions.
 */
export interface Condition extends ConditionAtoms {
  all?: Condition[];
  any?: Condition[];
  not?: Condition;
}

const ATOM_SHAPES = Object.fromEntries(
  Object.entries(CONDITION_ATOMS).map(([k, a]) => [k, a.shape(SHAPES).optional()]),
);

export const Condition: z.ZodType<Condition> = z
  .lazy(() =>
    z.strictObject({
      ...ATOM_SHAPES,
      all: z.array(Condition).optional(),
      any: z.array(Condition).min(1).optional(),
      not: Condition.optional(),
    }),
  )
  .meta({ id: "Condition" });

export const Eligibility = z.strictObject({
  allOf: z.array(Pattern).default([]),
  anyOf: z.array(Pattern).default([]),
  noneOf: z.array(Pattern).default([]),
});

/**
 * A list of values captured from the task text when it is known (before any tool call):
 * every match of `pattern` (its first group when it has one), at most 16, each at most 240
 * characters. Paths, file names and numbers the task names, in any language.
 */
export const TaskValues = z.strictObject({ id: Name, pattern: Pattern });

/** Marks the captured values of `values` that the current tool call uses, under `as`. */
export const MarkSpec = z.strictObject({ values: Name, as: Name, match: MatchMode.optional() });

/**
 * A run of identical results: when the rule's condition holds, `counter` grows by one if the
 * event's normalized `key` text (output by default; digits and spacing ignored) equals the
 * previous one's, else it restarts at 1. Read it with `count: "counter >= 3"`.
 */
export const StreakSpec = z.strictObject({
  counter: Name,
  key: z.enum(["output", "command", "input", "text"]).optional(),
});

export const TrackRule = z
  .strictObject({
    id: Name,
    /** Points the rule runs at; absent = every event (including messages). */
    at: z.union([RulePointSchema, z.array(RulePointSchema).min(1)]).optional(),
    when: Condition.optional(),
    set: Names.optional(),
    clear: Names.optional(),
    /** Record the current step under these names (overwrites: the latest one counts). */
    record: Names.optional(),
    /** Record the current step only if not yet recorded (the first one counts). */
    recordFirst: Names.optional(),
    increment: Names.optional(),
    mark: z.union([MarkSpec, z.array(MarkSpec).min(1)]).optional(),
    streak: StreakSpec.optional(),
  })
  .refine(
    (t) => t.set ?? t.clear ?? t.record ?? t.recordFirst ?? t.increment ?? t.mark ?? t.streak,
    "a tracking rule needs at least one of set, clear, record, recordFirst, increment, mark, streak",
  );
export type TrackRule = z.infer<typeof TrackRule>;

/**
 * The escalation ladder of a rule (read by the one evaluator, live and in replay). An
 * instruction is *ignored* when the rule's condition holds again (or, for `block`, the agent
 * stops) before the policy's behaviour marker held; after `after` ignored instructions in a
 * row the rule escalates: `deny` denies the tool call (rules at `tool` only), `block` blocks
 * the agent's stop with the rule's message. At most `cap` escalated firings per session; the
 * behaviour marker holding resets the count.
 */
export const Escalate = z.strictObject({
  after: z.number().int().min(1),
  action: z.enum(["deny", "block"]),
  cap: z.number().int().min(1).optional(),
});
export type Escalate = z.infer<typeof Escalate>;

export const Rule = z.strictObject({
  id: Name,
  at: RulePointSchema,
  when: Condition.optional(),
  action: z.enum(["instruct", "deny"]),
  message: z.string().min(1),
  /** Firings allowed per session. Default 1; a rule with a release repeats until released. */
  nudgeLimit: z.number().int().min(1).optional(),
  /** While this holds the rule never fires (e.g. "a full backup exists"). */
  release: Condition.optional(),
  escalate: Escalate.optional(),
});
export type Rule = z.infer<typeof Rule>;

export const Status = z.enum(["draft", "screening", "frozen", "retired"]);
export const PolicyMode = z.enum(["enforce", "observe"]);

export const Candidate = z
  .strictObject({
    $schema: z.string().optional(),
    id: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, "expected a lowercase id (a-z, 0-9, . _ -)"),
    version: z.number().int().min(1),
    family: z.string().min(1),
    title: z.string().min(1),
    chain: z.strictObject({
      state: z.string().min(1),
      intervention: z.string().min(1),
      behavior: z.string().min(1),
      verifier: z.string().min(1),
    }),
    status: Status.default("draft"),
    /**
     * `observe`: the hook evaluates and logs what the policy would have done, and the agent
     * sees nothing of it (shadow mode); `enforce` (default) acts.
     */
    mode: PolicyMode.optional(),
    lineage: z
      .strictObject({
        clusters: z.array(z.string()).default([]),
        attempts: z.array(z.string()).default([]),
        supersedes: z
          .string()
          .regex(/^[a-z0-9][a-z0-9._-]*@\d+$/, "expected id@version")
          .optional(),
      })
      .default({ clusters: [], attempts: [] }),
    history: z
      .array(z.strictObject({ at: z.string(), status: Status.optional(), note: z.string() }))
      .default([]),
    notes: z.string().optional(),
    eligibility: Eligibility.default({ allOf: [], anyOf: [], noneOf: [] }),
    values: z.array(TaskValues).default([]),
    track: z.array(TrackRule).default([]),
    rules: z.array(Rule).min(1),
    behavior: Condition,
    sham: z.string().min(1).optional(),
  })
  .superRefine((c, ctx) => {
    const seen = new Set<string>();
    const check = (id: string, path: (string | number)[]) => {
      if (seen.has(id)) ctx.addIssue({ code: "custom", path, message: `duplicate rule id ${id}` });
      seen.add(id);
    };
    for (const [i, t] of c.track.entries()) check(t.id, ["track", i, "id"]);
    const lists = new Set<string>();
    c.values.forEach((v, i) => {
      if (lists.has(v.id))
        ctx.addIssue({
          code: "custom",
          path: ["values", i, "id"],
          message: `duplicate values id ${v.id}`,
        });
      lists.add(v.id);
    });
    const known = (name: string, path: (string | number)[]) => {
      if (!lists.has(name))
        ctx.addIssue({
          code: "custom",
          path,
          message: `no values list ${name} (declare it under values)`,
        });
    };
    c.track.forEach((t, i) => {
      const marks = t.mark === undefined ? [] : Array.isArray(t.mark) ? t.mark : [t.mark];
      for (const [j, m] of marks.entries())
        known(m.values, ["track", i, "mark", ...(Array.isArray(t.mark) ? [j] : []), "values"]);
      if (t.when) conditionValueRefs(t.when, ["track", i, "when"], known);
    });
    c.rules.forEach((r, i) => {
      if (r.when) conditionValueRefs(r.when, ["rules", i, "when"], known);
      if (r.release) conditionValueRefs(r.release, ["rules", i, "release"], known);
    });
    conditionValueRefs(c.behavior, ["behavior"], known);
    c.rules.forEach((r, i) => {
      check(r.id, ["rules", i, "id"]);
      if (r.escalate?.action === "deny" && r.at !== "tool")
        ctx.addIssue({
          code: "custom",
          path: ["rules", i, "escalate", "action"],
          message: 'escalating to deny is only possible before a tool call (at: "tool"); use block',
        });
      if (r.action === "deny" && r.at !== "tool") {
        ctx.addIssue({
          code: "custom",
          path: ["rules", i, "action"],
          message: 'deny is only possible before a tool call (at: "tool"); use instruct',
        });
      }
    });
  });
export type Candidate = z.infer<typeof Candidate>;
export type CandidateInput = z.input<typeof Candidate>;
