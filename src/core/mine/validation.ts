import { readFile } from "node:fs/promises";
import { z } from "zod";
import { describeZodIssues, InputError } from "../errors.js";
import { FAMILIES } from "../families.js";
import type { Attempt } from "../model/attempt.js";
import { Exclusion, type Label } from "./label.js";

/** One expectation: an attempt (by id, or by a suffix of its source path) and its family or exclusion. */
export const ValidationEntry = z
  .strictObject({
    attemptId: z.string().min(1).optional(),
    path: z.string().min(1).optional(),
    family: z.enum(FAMILIES).optional(),
    exclusion: Exclusion.optional(),
    note: z.string().optional(),
  })
  .refine((e) => e.attemptId !== undefined || e.path !== undefined, "needs attemptId or path")
  .refine(
    (e) => (e.family === undefined) !== (e.exclusion === undefined || e.exclusion === "none"),
    "needs exactly one of family or exclusion",
  );
export type ValidationEntry = z.infer<typeof ValidationEntry>;

export const ValidationSet = z.strictObject({
  version: z.literal(1),
  description: z.string().optional(),
  entries: z.array(ValidationEntry),
});
export type ValidationSet = z.infer<typeof ValidationSet>;

export async function loadValidationSet(file: string): Promise<ValidationSet> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new InputError(file, undefined, `cannot read: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new InputError(file, undefined, `invalid JSON: ${(err as Error).message}`);
  }
  const r = ValidationSet.safeParse(raw);
  if (!r.success) {
    throw new InputError(
      file,
      undefined,
      `expected {version: 1, entries: [{attemptId|path, family|exclusion}]}: ${describeZodIssues(r.error.issues)}`,
    );
  }
  return r.data;
}

/** What a label says, in the validation vocabulary: a family, an exclusion, or "other". */
export function verdictOf(label: Label | undefined, triageExclusion?: string): string {
  if (triageExclusion) return `exclusion:${triageExclusion}`;
  if (!label) return "unlabelled";
  if (label.unlabelledReason) return "unlabelled";
  if (label.exclusion !== "none") return `exclusion:${label.exclusion}`;
  if (label.isProceduralLoss && label.family) return `family:${label.family}`;
  return "other";
}

export interface ValidationRow {
  /** `family:<id>` or `exclusion:<kind>`. */
  expected: string;
  total: number;
  agreed: number;
  /** Disagreements: attempt id → what the labeller said. */
  misses: { attemptId: string; got: string }[];
}

export interface ValidationReport {
  rows: ValidationRow[];
  total: number;
  agreed: number;
  /** Entries that matched no attempt. */
  unmatched: string[];
}

function matchAttempt(e: ValidationEntry, attempts: readonly Attempt[]): Attempt | undefined {
  if (e.attemptId) return attempts.find((a) => a.id === e.attemptId);
  const p = (e.path ?? "").replace(/\\/g, "/").replace(/\/+$/, "");
  return attempts.find((a) => {
    const s = a.source.path.replace(/\\/g, "/").replace(/\/+$/, "");
    return s === p || s.endsWith(`/${p}`) || s.includes(`/${p}/`);
  });
}

/**
 * Compares labels (and triage exclusions) with a validation set; agreement per family
 * and per exclusion kind. Provider/verifier faults excluded by triage count as such.
 */
export function validate(
  set: ValidationSet,
  attempts: readonly Attempt[],
  labels: ReadonlyMap<string, Label>,
  triageExclusions: ReadonlyMap<string, string>,
): ValidationReport {
  const rows = new Map<string, ValidationRow>();
  const unmatched: string[] = [];
  for (const e of set.entries) {
    const a = matchAttempt(e, attempts);
    if (!a) {
      unmatched.push(e.attemptId ?? e.path ?? "?");
      continue;
    }
    const expected = e.family ? `family:${e.family}` : `exclusion:${e.exclusion}`;
    const got = verdictOf(labels.get(a.id), triageExclusions.get(a.id));
    const row = rows.get(expected) ?? { expected, total: 0, agreed: 0, misses: [] };
    rows.set(expected, row);
    row.total++;
    if (got === expected) row.agreed++;
    else row.misses.push({ attemptId: a.id, got });
  }
  const sorted = [...rows.values()].sort((x, y) => (x.expected < y.expected ? -1 : 1));
  return {
    rows: sorted,
    total: sorted.reduce((s, r) => s + r.total, 0),
    agreed: sorted.reduce((s, r) => s + r.agreed, 0),
    unmatched,
  };
}
