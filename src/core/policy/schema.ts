import { z } from "zod";
import { EventKind } from "../model/attempt.js";
import { COUNT_CMP, STEP_ORDER } from "./grammar.js";

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
  })
  .refine(
    (t) => t.set ?? t.clear ?? t.record ?? t.recordFirst ?? t.increment,
    "a tracking rule needs at least one of set, clear, record, recordFirst, increment",
  );
export type TrackRule = z.infer<typeof TrackRule>;

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
});
export type Rule = z.infer<typeof Rule>;

export const Status = z.enum(["draft", "screening", "frozen", "retired"]);

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
    c.rules.forEach((r, i) => {
      check(r.id, ["rules", i, "id"]);
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
