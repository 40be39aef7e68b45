import { z } from "zod";
import { EventKind } from "../model/attempt.js";
import { EXIT_STATUSES, type ExitStatus } from "../model/exit-status.js";
import { conditionValueRefs } from "./atoms.js";
import { COUNT_CMP, ESCALATE_CAP, STEP_ORDER } from "./grammar.js";

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

/** `unmarked`: some captured value of `values` is not marked `as` (but is marked `markedAs`). */
export interface UnmarkedTest {
  values: string;
  as: string;
  markedAs?: string;
}
/** `mentions`: the current tool call uses a captured value of `values` (not marked `unless`). */
export interface MentionsTest {
  values: string;
  match?: "path" | "name" | "written";
  unless?: string;
}

/** A condition: every key present must hold (an empty object always holds). */
export interface Condition {
  kind?: EventKind | EventKind[];
  role?: "user" | "agent" | "system";
  tool?: Pattern;
  command?: Pattern;
  input?: Pattern;
  output?: Pattern;
  /** Matches the command, the input or the output. */
  text?: Pattern;
  /** Some path an edit tool wrote matches. */
  writes?: Pattern;
  exitCode?: z.infer<typeof NumberTest>;
  isError?: boolean;
  /**
   * The tool result's exit status (ok, failed, unknown; see core/model/exit-status.ts).
   * A result whose status is unknown never matches `ok`.
   */
  status?: ExitStatus | ExitStatus[];
  /** Every named flag is set. */
  flag?: string | string[];
  /** Every named flag is unset. */
  unset?: string | string[];
  /** Every named step has been recorded. */
  recorded?: string | string[];
  /** Ordering of recorded steps, `probe > launch`; `now` is the current step. */
  steps?: string;
  /** Counter comparison, `edits >= 2` (a counter never incremented is 0). */
  count?: string;
  /** Every named task-value list captured at least one value from the task text. */
  captured?: string | string[];
  unmarked?: UnmarkedTest;
  mentions?: MentionsTest;
  /**
   * Elapsed time since the session's first timestamped event is at least `share` of the
   * time limit the task text states (the first duration in values list `of`, e.g. "30
   * minutes"). False when there is no such limit or no timestamps.
   */
  elapsed?: { share: number; of: string };
  /** A time limit was captured in values list `of` and events carry timestamps. */
  timed?: string;
  all?: Condition[];
  any?: Condition[];
  not?: Condition;
}

export const Condition: z.ZodType<Condition> = z
  .lazy(() =>
    z.strictObject({
      kind: z.union([EventKind, z.array(EventKind).min(1)]).optional(),
      role: z.enum(["user", "agent", "system"]).optional(),
      tool: Pattern.optional(),
      command: Pattern.optional(),
      input: Pattern.optional(),
      output: Pattern.optional(),
      text: Pattern.optional(),
      writes: Pattern.optional(),
      exitCode: NumberTest.optional(),
      isError: z.boolean().optional(),
      status: z.union([z.enum(EXIT_STATUSES), z.array(z.enum(EXIT_STATUSES)).min(1)]).optional(),
      flag: Names.optional(),
      unset: Names.optional(),
      recorded: Names.optional(),
      steps: z
        .string()
        .regex(STEP_ORDER, "expected a step ordering such as `probe > launch` or `now > launch`")
        .optional(),
      count: z
        .string()
        .regex(COUNT_CMP, "expected a counter comparison such as `edits >= 1`")
        .optional(),
      captured: Names.optional(),
      unmarked: z.strictObject({ values: Name, as: Name, markedAs: Name.optional() }).optional(),
      mentions: z
        .strictObject({ values: Name, match: MatchMode.optional(), unless: Name.optional() })
        .optional(),
      elapsed: z.strictObject({ share: z.number().positive().max(1), of: Name }).optional(),
      timed: Name.optional(),
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
