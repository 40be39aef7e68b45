import { z } from "zod";
import { ArmName } from "../../model/arm.js";
import { Cohort } from "../../model/cohort.js";
import type { Observation } from "../../stats/types.js";

/**
 * One stored screen result (`screens/<name>/results.jsonl`, one JSON object a line):
 * a scored attempt of one task under one arm. The stored form is strict.
 */
export const ScreenRow = z.strictObject({
  task: z.string().min(1),
  arm: ArmName,
  attempt: z.number().int().nonnegative(),
  pass: z.boolean(),
  replicate: z.number().int().nonnegative().optional(),
  cohort: Cohort.optional(),
  cost: z.number().nonnegative().optional(),
  durationS: z.number().nonnegative().optional(),
  risky: z.boolean().optional(),
  fired: z.boolean().optional(),
  behavior: z.boolean().optional(),
  /** Why integrity checks excluded this attempt from scoring. */
  unscorable: z.string().min(1).optional(),
  /** Where the row came from (file or trial directory). */
  source: z.string().optional(),
  /** The normalized attempt id, when imported from traces. */
  attemptId: z.string().optional(),
  /**
   * Provider-failed attempts this row replaces, in recovery order (the plan's replacement
   * rule: keep the original fair observation, else the first fair result in recovery order).
   */
  lineage: z.array(z.string()).optional(),
});
export type ScreenRow = z.infer<typeof ScreenRow>;

const blankToUndefined = (v: unknown): unknown =>
  typeof v === "string" && v.trim() === "" ? undefined : v;

const TRUE = new Set(["1", "true", "yes", "y", "pass", "passed", "t"]);
const FALSE = new Set(["0", "false", "no", "n", "fail", "failed", "f"]);

const flexBool = z.preprocess(
  (v) => {
    const b = blankToUndefined(v);
    if (typeof b === "number") return b === 1 ? true : b === 0 ? false : b;
    if (typeof b !== "string") return b;
    const s = b.trim().toLowerCase();
    return TRUE.has(s) ? true : FALSE.has(s) ? false : b;
  },
  z.boolean({ error: "expected true/false, 1/0 or pass/fail" }),
);

const flexNum = z.preprocess(
  (v) => {
    const b = blankToUndefined(v);
    return typeof b === "string" && /^-?\d+(\.\d+)?(e-?\d+)?$/i.test(b.trim()) ? Number(b) : b;
  },
  z.number({ error: "expected a number" }),
);

const flexStr = z.preprocess(
  (v) => (typeof v === "number" ? String(v) : blankToUndefined(v)),
  z.string().min(1),
);

/**
 * A row as users write it (CSV cells are strings; JSONL may use numbers/booleans):
 * `task, arm, attempt, pass` plus optional `cost`, `durationS`, `fired`, `behavior`,
 * `risky`, `cohort`, `replicate`. Unknown columns are ignored.
 */
export const ScreenRowInput = z
  .preprocess(
    (v) =>
      v && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).filter(([, x]) => blankToUndefined(x) !== undefined))
        : v,
    z.object({
      task: flexStr,
      arm: flexStr.pipe(ArmName),
      attempt: flexNum.pipe(z.number().int().nonnegative()),
      pass: flexBool,
      replicate: flexNum.pipe(z.number().int().nonnegative()).optional(),
      cohort: flexStr.pipe(Cohort).optional(),
      cost: flexNum.pipe(z.number().nonnegative()).optional(),
      durationS: flexNum.pipe(z.number().nonnegative()).optional(),
      risky: flexBool.optional(),
      fired: flexBool.optional(),
      behavior: flexBool.optional(),
    }),
  )
  .transform((r) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(r)) if (v !== undefined) out[k] = v;
    return out as ScreenRow;
  });

/** The identity of a result cell: a re-import of the same cell replaces it. */
export function rowKey(r: Pick<ScreenRow, "task" | "arm" | "attempt" | "replicate">): string {
  return JSON.stringify([r.task, r.arm, r.replicate ?? null, r.attempt]);
}

/** Rows → statistics observations (replicate × attempt become one attempt index). */
export function toObservations(rows: readonly ScreenRow[]): Observation[] {
  return rows.map((r) => {
    const o: Observation = {
      task: r.task,
      arm: r.arm,
      attempt: (r.replicate ?? 0) * 1000 + r.attempt,
      pass: r.pass,
    };
    if (r.cohort !== undefined) o.cohort = r.cohort;
    if (r.cost !== undefined) o.cost = r.cost;
    if (r.durationS !== undefined) o.durationS = r.durationS;
    if (r.risky !== undefined) o.risky = r.risky;
    if (r.fired !== undefined) o.fired = r.fired;
    if (r.behavior !== undefined) o.behavior = r.behavior;
    if (r.unscorable !== undefined) o.unscorable = r.unscorable;
    return o;
  });
}
