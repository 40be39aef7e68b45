import type { Fault } from "../mine/faults/index.js";
import type { Attempt } from "../model/attempt.js";
import type { EventStore, UnitRef } from "./event-store.js";
import {
  type AttemptTable,
  type CheckedTable,
  FIELDS,
  LAZY,
  type LazyPart,
  SAME_PATH,
  SHAPE,
  shapeOf,
  withPaths,
} from "./index-table.js";
import { RowView } from "./row-view.js";

/** The attempts of an index table, with what triage and the lists take from it. */
export interface DecodedAttempts {
  attempts: Attempt[];
  /** The attempts by id (one id → row map behind this and the two below). */
  byId: ReadonlyMap<string, Attempt>;
  faults: ReadonlyMap<string, Fault | null>;
  eventCounts: ReadonlyMap<string, number>;
}

/**
 * The attempts of a checked table, fields in the model's order (so an attempt's JSON,
 * and every hash of it, e.g. the label cache's, is that of the parsed attempt). `events`
 * and the other lazy parts it has are accessors that read the full attempt from the
 * parse cache on first use. The accessors are shared by all attempts of a unit, so the
 * attempts of a unit share one hidden class (an accessor made per attempt would turn each
 * into a dictionary-mode object: most of a warm open's memory).
 */
export function decodeAttempts(
  t: CheckedTable,
  tasks: readonly [string, string][],
  units: readonly UnitRef[],
  store: EventStore,
): DecodedAttempts {
  const inner = new Map(t.inner.map(([row, id]) => [t.ids[row]!, id]));
  const refs = units.map((_, unit): PropertyDescriptor => ({ value: { store, unit, inner } }));
  const plan = fieldPlan(t);
  const nu = units.length;
  const sources = new Map<number, unknown>();
  const unitFaults = new Map<number, Fault>();
  const attempts: Attempt[] = new Array(t.ids.length);
  const faults: (Fault | null)[] = new Array(t.ids.length);
  const { values, rows } = t;
  for (let i = 0; i < t.ids.length; i++) {
    const id = t.ids[i]!;
    const u = t.unit[i]!;
    const task = tasks[t.task[i]!]!;
    const parts = t.parts[i]!;
    const a: Record<string, unknown> = {};
    for (const op of plan) {
      if (op.kind === ID) a.id = id;
      else if (op.kind === TASK) a.taskId = task[0];
      else if (op.kind === TASK_TEXT) a.taskText = task[1];
      else if (op.kind === LAZY_PART) {
        if (op.bit === 0 || parts & (1 << op.bit))
          Object.defineProperty(a, op.name, ACCESSORS[op.bit]!);
      } else if (op.kind === VALUE) {
        const v = op.col![i]!;
        if (v >= 0) a[op.name] = values[v];
      } else {
        // one source object per unit and stored value, the unit's path filled in
        const v = op.col![i]!;
        let s = sources.get(v * nu + u);
        if (!s) {
          const stored = values[v] as { format: string; path: string | number };
          s = stored.path === SAME_PATH ? { ...stored, path: units[u]!.path } : stored;
          sources.set(v * nu + u, s);
        }
        a.source = s;
      }
    }
    const f = t.fault[i]!;
    let fault: Fault | null = null;
    if (f >= 0) {
      const path = (a.source as { path: string }).path;
      if (path !== units[u]!.path) fault = withPaths(values[f] as Fault, path);
      else {
        fault = unitFaults.get(f * nu + u) ?? withPaths(values[f] as Fault, path);
        unitFaults.set(f * nu + u, fault);
      }
    }
    Object.defineProperty(a, ROW, refs[u]!);
    faults[i] = fault;
    attempts[i] = a as unknown as Attempt;
  }
  return {
    attempts,
    byId: new RowView(rows, (i) => attempts[i]!),
    faults: new RowView(rows, (i) => faults[i]!),
    eventCounts: new RowView(rows, (i) => t.events[i]!),
  };
}

const ID = 0;
const TASK = 1;
const TASK_TEXT = 2;
const LAZY_PART = 3;
const VALUE = 4;
const SOURCE = 5;

interface FieldOp {
  kind: number;
  name: string;
  bit: number;
  col?: number[];
}

/** What to do for each field of the model, in its order (worked out once, not per row). */
function fieldPlan(t: AttemptTable): FieldOp[] {
  return FIELDS.map((name) => {
    const bit = (LAZY as readonly string[]).indexOf(name);
    const kind =
      name === "id"
        ? ID
        : name === "taskId"
          ? TASK
          : name === "taskText"
            ? TASK_TEXT
            : bit >= 0
              ? LAZY_PART
              : name === "source"
                ? SOURCE
                : VALUE;
    const col = t.fields[name];
    return { kind, name, bit, ...(col ? { col } : {}) };
  });
}

/** Where an index attempt's full attempt is read from (a hidden property of the attempt). */
interface RowRef {
  store: EventStore;
  unit: number;
  /** Attempt ids the load renamed → their ids inside their units. */
  inner: ReadonlyMap<string, string>;
}

const NO_RENAMES: ReadonlyMap<string, string> = new Map();

/**
 * The attempt as an index-backed one: its fields in the model's order, its lazy parts
 * (events, verifier output, …) read from unit `unit` of `store` on first use. What a load
 * keeps of a unit once its parse-cache entry is written, so a cold read holds the attempts
 * of the units in flight, not every event of the workspace. `a` must be the attempt that
 * entry holds (same id).
 */
export function lightAttempt(a: Attempt, store: EventStore, unit: number): Attempt {
  const shape = shapeOf(a);
  const out: Record<string, unknown> = {};
  for (const name of FIELDS) {
    const bit = (LAZY as readonly string[]).indexOf(name);
    if (bit >= 0) {
      if (bit === 0 || shape.parts & (1 << bit)) Object.defineProperty(out, name, ACCESSORS[bit]!);
    } else if (a[name] !== undefined) out[name] = a[name];
  }
  const ref: RowRef = { store, unit, inner: NO_RENAMES };
  Object.defineProperty(out, ROW, { value: ref });
  Object.defineProperty(out, SHAPE, { value: shape });
  return out as unknown as Attempt;
}

const ROW = Symbol("index row");

/**
 * The accessor of one lazy part: reads the full attempt (by its id inside its unit) from
 * the store; an assignment replaces it with a plain value. One per part for every
 * attempt of every index (accessors that differ between objects of one shape would send
 * each to dictionary mode).
 */
const ACCESSORS: PropertyDescriptor[] = LAZY.map((name) => ({
  enumerable: true,
  configurable: true,
  get(this: Attempt & { [ROW]: RowRef }) {
    const r = this[ROW];
    return r.store.attempt(r.unit, r.inner.get(this.id) ?? this.id)[name];
  },
  set(this: Attempt, value: unknown) {
    Object.defineProperty(this, name, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  },
}));

/**
 * Copies of `attempts` with their lazy parts read: an index's attempts unit by unit (each
 * unit's parse-cache entry decoded once), the rest as they are. Work that reads the events
 * of every attempt in task order (mining) reads them so: a task's attempts spread over more
 * units than the store keeps decoded would decode each unit again for every task it holds
 * (minutes at 100,000 attempts). The copies keep the model's field order (label keys hash
 * an attempt's JSON); the workspace's own attempts stay lazy.
 */
export function withAllParts(attempts: readonly Attempt[]): Attempt[] {
  const byUnit = new Map<EventStore, Map<number, number[]>>();
  attempts.forEach((a, i) => {
    const r = (a as Attempt & { [ROW]?: RowRef })[ROW];
    if (!r) return;
    const units = byUnit.get(r.store) ?? new Map<number, number[]>();
    byUnit.set(r.store, units);
    const rows = units.get(r.unit);
    if (rows) rows.push(i);
    else units.set(r.unit, [i]);
  });
  const out = [...attempts];
  for (const [store, units] of byUnit)
    for (const [unit, rows] of units)
      for (const i of rows) {
        const a = attempts[i] as Attempt & { [ROW]: RowRef };
        const full = store.attempt(unit, a[ROW].inner.get(a.id) ?? a.id);
        const copy: Record<string, unknown> = {};
        for (const [name, d] of Object.entries(Object.getOwnPropertyDescriptors(a)))
          copy[name] = d.get ? full[name as LazyPart] : d.value;
        out[i] = copy as unknown as Attempt;
      }
  return out;
}
