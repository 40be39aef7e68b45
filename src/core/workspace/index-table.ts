import { z } from "zod";
import type { Fault } from "../mine/faults/index.js";
import { type Attempt, Attempt as AttemptSchema, Tokens } from "../model/attempt.js";

/**
 * The attempts of the workspace index as columns: one array per field, each entry a
 * number into `values` (every distinct field value once, -1: absent). 100,000 attempts
 * are a dozen arrays of small numbers and their ids, not 100,000 objects, so a warm open
 * parses it in a fraction of the time and attempts share the values they repeat (model
 * names, outcomes, token counts, faults) instead of holding a copy each.
 */
export interface AttemptTable {
  ids: string[];
  /** Rows the load renamed (a clash of ids): [row, the attempt's id inside its unit]. */
  inner: [number, string][];
  /** Task number (into the index's tasks) per row. */
  task: number[];
  /** Source unit number per row. */
  unit: number[];
  /** Event count per row. */
  events: number[];
  /** Bit i set: the row's attempt has LAZY[i] (i > 0; every attempt has events). */
  parts: number[];
  /** Value number per row of each stored field. */
  fields: Record<string, number[]>;
  /** Value number of the row's outside fault (triage's faultOf), -1: none. */
  fault: number[];
  /** Distinct values (JSON), shared by every row that has them. */
  values: unknown[];
}

/** Parts of an attempt read from the parse cache on first use, not kept in the index. */
export const LAZY = [
  "events",
  "verifierOutput",
  "verifierSource",
  "verifierScores",
  "links",
  "exception",
  "verifierTests",
] as const;
export type LazyPart = (typeof LAZY)[number];

/** What the index table keeps of an attempt's lazy parts: the event count, the parts it has. */
export interface AttemptShape {
  events: number;
  /** Bit i set: the attempt has LAZY[i] (i > 0). */
  parts: number;
}

/** A light attempt's shape (core/workspace/index-attempts.ts `lightAttempt`), kept with it. */
export const SHAPE = Symbol("attempt shape");

/** The shape of an attempt, read without its events when it is a light one. */
export function shapeOf(a: Attempt): AttemptShape {
  const known = (a as Attempt & { [SHAPE]?: AttemptShape })[SHAPE];
  if (known) return known;
  let parts = 0;
  LAZY.forEach((name, bit) => {
    if (bit > 0 && a[name] !== undefined) parts |= 1 << bit;
  });
  return { events: a.events.length, parts };
}

/** The model's fields in its order: attempts from the index keep the order of parsed ones. */
export const FIELDS = Object.keys(AttemptSchema.shape) as (keyof Attempt)[];

/** Fields the table keeps as value columns (all but the id, the task and the lazy parts). */
export const STORED = FIELDS.filter(
  (f) =>
    f !== "id" && f !== "taskId" && f !== "taskText" && !(LAZY as readonly string[]).includes(f),
);

/**
 * Stands for the attempt's own unit path in `source.path` and in its fault's evidence:
 * 100,000 copies of a long path would otherwise be most of an index.
 */
export const SAME_PATH = 0;

/** What one row of the table is made from. */
export interface TableRow {
  attempt: Attempt;
  task: number;
  unit: number;
  unitPath: string;
  /** The attempt's id inside its unit. */
  innerId: string;
  fault: Fault | undefined;
}

/** Builds the table (values deduplicated by their JSON). */
export function encodeTable(rows: readonly TableRow[]): AttemptTable {
  const values: unknown[] = [];
  // by JSON text; strings and numbers by themselves (the same dedup without a JSON text each)
  const seen = new Map<string, number>();
  const strings = new Map<string, number>();
  const numbers = new Map<number, number>();
  const add = <K>(map: Map<K, number>, k: K, v: unknown): number => {
    let n = map.get(k);
    if (n === undefined) {
      n = values.length;
      values.push(v);
      map.set(k, n);
    }
    return n;
  };
  const valueNo = (v: unknown): number => {
    if (v === undefined) return -1;
    if (typeof v === "string") return add(strings, v, v);
    if (typeof v === "number" && Number.isFinite(v)) return add(numbers, v, v);
    return add(seen, JSON.stringify(v), v);
  };
  const t: AttemptTable = {
    ids: [],
    inner: [],
    task: [],
    unit: [],
    events: [],
    parts: [],
    fields: Object.fromEntries(STORED.map((f) => [f, [] as number[]])),
    fault: [],
    values,
  };
  rows.forEach((r, i) => {
    const a = r.attempt;
    t.ids.push(a.id);
    if (r.innerId !== a.id) t.inner.push([i, r.innerId]);
    t.task.push(r.task);
    t.unit.push(r.unit);
    const shape = shapeOf(a);
    t.events.push(shape.events);
    t.parts.push(shape.parts);
    for (const f of STORED) {
      const v =
        f === "source" && a.source.path === r.unitPath
          ? { format: a.source.format, path: SAME_PATH }
          : a[f];
      t.fields[f]!.push(valueNo(v));
    }
    t.fault.push(valueNo(r.fault && samePaths(r.fault, a.source.path)));
  });
  return t;
}

const Evidence = z.strictObject({
  file: z.union([z.string(), z.literal(SAME_PATH)]).optional(),
  line: z.number().optional(),
  eventIndex: z.number().optional(),
  excerpt: z.string().optional(),
});
const StoredFault = z.strictObject({
  reason: z.enum(["provider_fault", "verifier_fault", "no_outcome", "no_actions"]),
  code: z.string().optional(),
  detail: z.string(),
  evidence: z.array(Evidence),
});
const StoredSource = z.strictObject({
  format: AttemptSchema.shape.source.shape.format,
  path: z.union([z.string(), z.literal(SAME_PATH)]),
});

const TOKEN_KEYS = new Set(Object.keys(Tokens.shape));

/**
 * Token counts the plain way (a plain object of known keys, each a count ≥ 0): what the
 * Tokens schema accepts from JSON, checked without it, since 100,000 attempts hold as many
 * distinct counts. Anything else still goes to the schema, which decides.
 */
const plainTokens = (v: unknown): boolean => {
  if (typeof v !== "object" || v === null || Object.getPrototypeOf(v) !== Object.prototype)
    return false;
  for (const k in v) {
    if (!Object.hasOwn(v, k) || !TOKEN_KEYS.has(k)) return false;
    const n = (v as Record<string, unknown>)[k];
    if (typeof n !== "number" || !(n >= 0) || n === Number.POSITIVE_INFINITY) return false;
  }
  return true;
};

/** Checks that accept a stored value for sure without its schema (else the schema decides). */
const SURE: Partial<Record<keyof Attempt, (v: unknown) => boolean>> = { tokens: plainTokens };

/** The schema a stored field's value must meet (the model's, `source` with SAME_PATH). */
const fieldSchema = (f: keyof Attempt): z.ZodType =>
  f === "source" ? StoredSource : (AttemptSchema.shape[f] as z.ZodType);

const isCount = (x: unknown): x is number => Number.isInteger(x) && (x as number) >= 0;

/** A table that passed `checkTable`, with its row of each id (ids are unique). */
export interface CheckedTable extends AttemptTable {
  rows: ReadonlyMap<string, number>;
}

/**
 * Checks a parsed table against the layout and every distinct value against the model's
 * schema; undefined when anything is off (the caller then reads the sources again).
 * `tasks` and `units` bound the task and unit numbers. The id → row map the uniqueness
 * check builds is kept: the decoded attempts' lookups use it (one map of 100,000 ids, not two).
 */
export function checkTable(
  raw: unknown,
  tasks: number,
  units: number,
  /** The bytes fire wrote (stamped): the layout is checked, the values are not. */
  trusted = false,
): CheckedTable | undefined {
  const t = raw as AttemptTable | undefined;
  if (!t || !Array.isArray(t.ids) || !Array.isArray(t.values) || !Array.isArray(t.inner))
    return undefined;
  const n = t.ids.length;
  const cols = [t.task, t.unit, t.events, t.parts, t.fault];
  const fieldCols = STORED.map((f) => t.fields?.[f]);
  if (
    !t.fields ||
    Object.keys(t.fields).some((k) => !(STORED as string[]).includes(k)) ||
    [...cols, ...fieldCols].some((c) => !Array.isArray(c) || c.length !== n)
  )
    return undefined;
  const nv = t.values.length;
  const rows = new Map<string, number>(); // ids are unique (a full load renames clashes)
  for (let i = 0; i < n; i++) {
    const id = t.ids[i];
    if (typeof id !== "string" || !id || rows.has(id)) return undefined;
    rows.set(id, i);
    const task = t.task[i]!;
    const unit = t.unit[i]!;
    if (!isCount(task) || task >= tasks || !isCount(unit) || unit >= units) return undefined;
    if (!isCount(t.events[i]) || !isCount(t.parts[i])) return undefined;
  }
  for (const e of t.inner as unknown[]) {
    if (!Array.isArray(e) || e.length !== 2) return undefined;
    const [i, id] = e as [unknown, unknown];
    if (!isCount(i) || (i as number) >= n || typeof id !== "string" || !id) return undefined;
  }
  if (trusted) return Object.assign(t, { rows });
  // each distinct value is checked once per column that uses it, against that field's schema
  const check = (col: number[], schema: z.ZodType, sure?: (v: unknown) => boolean): boolean => {
    const done = new Uint8Array(nv);
    for (const v of col) {
      if (v === -1 || done[v] === 1) continue;
      if (!Number.isInteger(v) || v < -1 || v >= nv) return false;
      const value = t.values[v];
      if (!sure?.(value) && !schema.safeParse(value).success) return false;
      done[v] = 1;
    }
    return true;
  };
  if (!check(t.fault, StoredFault)) return undefined;
  for (const [k, f] of STORED.entries()) {
    const schema = fieldSchema(f);
    if (!check(fieldCols[k]!, schema, SURE[f])) return undefined;
    // a field the model requires (outcome, arm, source, …) is never absent (-1)
    if (!schema.safeParse(undefined).success && !fieldCols[k]!.every((v) => v >= 0))
      return undefined;
  }
  return Object.assign(t, { rows });
}

/** A fault as the index stores it: evidence in the attempt's own file names no path. */
export function samePaths(f: Fault, path: string): Fault {
  if (!f.evidence.some((e) => e.file === path)) return f;
  return {
    ...f,
    evidence: f.evidence.map((e) =>
      e.file === path ? { ...e, file: SAME_PATH as unknown as string } : e,
    ),
  };
}

/** The stored fault with its evidence paths back (the inverse of `samePaths`). */
export function withPaths(f: Fault, path: string): Fault {
  if (!f.evidence.some((e) => (e.file as unknown) === SAME_PATH)) return f;
  return {
    ...f,
    evidence: f.evidence.map((e) => ((e.file as unknown) === SAME_PATH ? { ...e, file: path } : e)),
  };
}
