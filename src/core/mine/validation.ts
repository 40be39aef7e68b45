import { readFile } from "node:fs/promises";
import { z } from "zod";
import { describeZodIssues, InputError, parseJsonText } from "../errors.js";
import { FAMILIES } from "../families.js";
import type { Attempt } from "../model/attempt.js";
import { Exclusion, isNamed, type Label } from "./label.js";
import { isMechanismId, mechanismById } from "./mechanisms.js";

/** One expectation: an attempt (by id, or by a suffix of its source path) and its family, mechanism or exclusion. */
export const ValidationEntry = z
  .strictObject({
    attemptId: z.string().min(1).optional(),
    path: z.string().min(1).optional(),
    family: z.enum(FAMILIES).optional(),
    /** A procedural loss by a mechanism with no family (an id from core/mine/mechanisms.ts). */
    mechanism: z
      .string()
      .refine(isMechanismId, "a mechanism id from core/mine/mechanisms.ts")
      .optional(),
    exclusion: Exclusion.exclude(["none"]).optional(),
    /** `false`: a failure that is not a procedural loss (any exclusion agrees). */
    procedural: z.literal(false).optional(),
    note: z.string().optional(),
  })
  .refine((e) => e.attemptId !== undefined || e.path !== undefined, "needs attemptId or path")
  .refine(
    (e) =>
      [e.family, e.mechanism, e.exclusion, e.procedural].filter((x) => x !== undefined).length ===
      1,
    "needs exactly one of family, mechanism, exclusion or procedural: false",
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
  const r = ValidationSet.safeParse(parseJsonText(text, file));
  if (!r.success) {
    throw new InputError(
      file,
      undefined,
      `expected {version: 1, entries: [{attemptId|path, family|mechanism|exclusion|procedural}]}: ${describeZodIssues(r.error.issues)}`,
    );
  }
  return r.data;
}

/**
 * What a label says, in the validation vocabulary: a family, a mechanism with no family
 * (`mechanism:<id>`), an exclusion, or "other" (in scope, no mechanism named: needs review,
 * or an LLM's free-text mechanism).
 */
export function verdictOf(label: Label | undefined, triageExclusion?: string): string {
  if (triageExclusion) return `exclusion:${triageExclusion}`;
  if (!label) return "unlabelled";
  if (label.unlabelledReason) return "unlabelled";
  if (label.exclusion !== "none") return `exclusion:${label.exclusion}`;
  if (!isNamed(label)) return "other";
  if (label.family) return `family:${label.family}`;
  const m = mechanismById(label.mechanismId);
  if (m) return m.family ? `family:${m.family}` : `mechanism:${m.id}`;
  return "other";
}

export interface ValidationRow {
  /** `family:<id>`, `mechanism:<id>`, `exclusion:<kind>` or `not-procedural`. */
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
    const expected = e.family
      ? `family:${e.family}`
      : e.mechanism
        ? `mechanism:${e.mechanism}`
        : e.exclusion
          ? `exclusion:${e.exclusion}`
          : "not-procedural";
    const got = verdictOf(labels.get(a.id), triageExclusions.get(a.id));
    const row = rows.get(expected) ?? { expected, total: 0, agreed: 0, misses: [] };
    rows.set(expected, row);
    row.total++;
    const agrees =
      expected === "not-procedural"
        ? got.startsWith("exclusion:") || got === "other"
        : got === expected;
    if (agrees) row.agreed++;
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

/** The demo generator's manifest, as far as a validation set needs it. */
export const DemoManifest = z.object({
  seed: z.number().optional(),
  tasks: z.array(
    z.object({
      taskId: z.string(),
      attemptDetails: z.array(
        z.object({
          path: z.string(),
          outcome: z.string(),
          planted: z.string().nullable(),
          preFailure: z.object({ command: z.string() }).nullable().optional(),
        }),
      ),
    }),
  ),
});
export type DemoManifest = z.infer<typeof DemoManifest>;

/**
 * A validation set from the demo manifest: every failed attempt with its planted family,
 * capability_gap / provider_fault exclusion, or "not procedural" (planted null).
 * Attempts are named by path (relative to the corpus root), which ids are derived from.
 */
export function validationFromManifest(m: DemoManifest, prefix = ""): ValidationSet {
  const entries: ValidationEntry[] = [];
  for (const t of m.tasks) {
    for (const a of t.attemptDetails) {
      if (a.outcome === "pass") continue;
      const path = `${prefix}${a.path}`;
      const p = a.planted;
      if (p === null) entries.push({ path, procedural: false, note: t.taskId });
      else if (p === "capability_gap" || p === "provider_fault")
        entries.push({ path, exclusion: p, note: t.taskId });
      else if ((FAMILIES as readonly string[]).includes(p))
        entries.push({ path, family: p as ValidationEntry["family"], note: t.taskId });
    }
  }
  return {
    version: 1,
    description: `Derived from the demo manifest (seed ${m.seed ?? "?"}): expected family or exclusion per failed attempt.`,
    entries,
  };
}
