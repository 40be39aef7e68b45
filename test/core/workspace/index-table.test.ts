import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Fault } from "../../../src/core/mine/faults/index.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { EventStore, type UnitRef } from "../../../src/core/workspace/event-store.js";
import { decodeAttempts } from "../../../src/core/workspace/index-attempts.js";
import {
  type AttemptTable,
  checkTable,
  encodeTable,
  FIELDS,
  LAZY,
  type TableRow,
} from "../../../src/core/workspace/index-table.js";

const UNITS: UnitRef[] = [
  { path: "/w/traces/a.jsonl", stamp: "1-1" },
  { path: "/w/traces/b", stamp: "2-2" },
];

const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

/** An attempt of the model with any mix of optional fields (events only counted). */
const attemptArb = fc.record({
  n: fc.nat({ max: 5 }),
  unit: fc.constantFrom(0, 1),
  ownPath: fc.boolean(),
  format: fc.constantFrom("fire-jsonl", "harbor-trial", "codex-rollout"),
  taskId: fc.constantFrom("t/1", "t/2", "t/3"),
  agent: opt(fc.constantFrom("claude-code", "codex", "")),
  model: opt(fc.string({ maxLength: 6 })),
  arm: fc.constantFrom("baseline", "sham"),
  replicate: opt(fc.nat({ max: 3 })),
  outcome: fc.constantFrom("pass", "fail", "error", "timeout", "unknown"),
  // JSON has no -0 (the parse cache neither)
  reward: opt(
    fc.option(
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => x + 0),
      { nil: null },
    ),
  ),
  costUsd: opt(fc.constant(null)),
  tokens: opt(fc.record({ input: fc.nat(), output: fc.nat() })),
  startedAt: opt(fc.constantFrom("2026-10-13T06:42:01.412Z", "2026-10-12T01:00:00Z")),
  verifierOutput: opt(fc.string({ maxLength: 8 })),
  exception: opt(fc.record({ type: fc.constantFrom("AgentTimeoutError", "DockerError") })),
  fault: fc.boolean(),
});
type Spec = typeof attemptArb extends fc.Arbitrary<infer T> ? T : never;

function rowsOf(specs: readonly Spec[]): TableRow[] {
  return specs.map((r, i) => {
    const unitPath = UNITS[r.unit]!.path;
    const a = {
      id: `a-${i}`,
      source: { format: r.format, path: r.ownPath ? unitPath : `${unitPath}/trial-${i}` },
      taskId: r.taskId,
      taskText: `do ${r.taskId}`,
      ...(r.agent !== undefined ? { agent: r.agent } : {}),
      ...(r.model !== undefined ? { model: r.model } : {}),
      arm: r.arm,
      ...(r.replicate !== undefined ? { replicate: r.replicate } : {}),
      outcome: r.outcome,
      ...(r.reward !== undefined ? { reward: r.reward } : {}),
      ...(r.exception ? { exception: r.exception } : {}),
      ...(r.costUsd !== undefined ? { costUsd: r.costUsd } : {}),
      ...(r.tokens ? { tokens: r.tokens } : {}),
      ...(r.startedAt ? { startedAt: r.startedAt } : {}),
      ...(r.verifierOutput !== undefined ? { verifierOutput: r.verifierOutput } : {}),
      events: Array.from({ length: r.n }, (_, index) => ({ index, kind: "stop" as const })),
    } as Attempt;
    const fault: Fault | undefined = r.fault
      ? {
          reason: "no_outcome",
          detail: "no verifier outcome",
          evidence: [{ file: a.source.path, excerpt: "no reward" }, { eventIndex: 0 }],
        }
      : undefined;
    const task = ["t/1", "t/2", "t/3"].indexOf(r.taskId);
    return {
      attempt: a,
      task,
      unit: r.unit,
      unitPath,
      innerId: i % 7 === 3 ? `x-${i}` : a.id,
      fault,
    };
  });
}

const TASKS: [string, string][] = ["t/1", "t/2", "t/3"].map((t) => [t, `do ${t}`]);
const store = () => new EventStore("/nonexistent/parse", "{}", UNITS);

/** An attempt's fields other than the lazy parts, in their own order (no parse-cache read). */
const head = (a: Attempt) =>
  Object.keys(a)
    .filter((k) => !(LAZY as readonly string[]).includes(k))
    .map((k) => [k, (a as unknown as Record<string, unknown>)[k]]);

describe("workspace index table", () => {
  it("round-trips every attempt head, its event count and fault, through JSON", () => {
    fc.assert(
      fc.property(fc.array(attemptArb, { maxLength: 30 }), (specs) => {
        const rows = rowsOf(specs);
        const table = checkTable(JSON.parse(JSON.stringify(encodeTable(rows))), 3, 2);
        expect(table).toBeDefined();
        const got = decodeAttempts(table!, TASKS, UNITS, store());
        expect(got.attempts.map(head)).toEqual(
          rows.map((r) => {
            const { events: _e, verifierOutput: _v, exception: _x, ...rest } = r.attempt;
            return Object.entries(rest);
          }),
        );
        // the lazy parts an attempt has are there (as accessors), in the model's order
        for (const [i, a] of got.attempts.entries()) {
          const keys = Object.keys(a);
          expect(keys).toEqual(FIELDS.filter((f) => f in rows[i]!.attempt));
          expect(got.eventCounts.get(a.id)).toBe(rows[i]!.attempt.events.length);
          expect(got.faults.get(a.id)).toEqual(rows[i]!.fault ?? null);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("attempts share the values they repeat and read lazy parts from the parse cache", () => {
    const rows = rowsOf(
      fc
        .sample(attemptArb, { numRuns: 20, seed: 3 })
        .map((r) => ({ ...r, tokens: { input: 1, output: 2 } })),
    );
    const table = checkTable(JSON.parse(JSON.stringify(encodeTable(rows))), 3, 2)!;
    const { attempts } = decodeAttempts(table, TASKS, UNITS, store());
    expect(attempts[0]!.tokens).toBe(attempts[1]!.tokens);
    expect(() => attempts[0]!.events).toThrow(/cannot read the events/);
    // an assignment replaces the lazy part with a plain value
    attempts[0]!.events = [];
    expect(attempts[0]!.events).toEqual([]);
  });

  it("rejects a table that is off in layout, range or a value's schema", () => {
    const rows = rowsOf(fc.sample(attemptArb, { numRuns: 12, seed: 9 }));
    const good = () => JSON.parse(JSON.stringify(encodeTable(rows))) as AttemptTable;
    expect(checkTable(good(), 3, 2)).toBeDefined();
    const broken: [string, (t: AttemptTable) => void][] = [
      ["a short column", (t) => t.task.pop()],
      ["a task out of range", (t) => (t.task[0] = 3)],
      ["a unit out of range", (t) => (t.unit[1] = 2)],
      ["a value number out of range", (t) => (t.fields.outcome![2] = t.values.length)],
      ["an unknown field", (t) => (t.fields.secret = t.task.map(() => -1))],
      ["a missing source", (t) => (t.fields.source![0] = -1)],
      ["a missing outcome (the model requires one)", (t) => (t.fields.outcome![1] = -1)],
      ["a duplicate id", (t) => (t.ids[1] = t.ids[0]!)],
      ["an inner entry that is not a pair", (t) => (t.inner as unknown[]).push(5)],
      ["a null inner entry", (t) => (t.inner as unknown[]).push(null)],
      ["a negative event count", (t) => (t.events[0] = -1)],
      ["an empty id", (t) => (t.ids[0] = "")],
      [
        "an outcome outside the model",
        (t) => {
          t.values[t.fields.outcome![0]!] = "bogus";
        },
      ],
      [
        "a fault of another shape",
        (t) => {
          t.values.push({ reason: "nope" });
          t.fault[0] = t.values.length - 1;
        },
      ],
      ["no table at all", (t) => Object.assign(t, { ids: undefined })],
      [
        "negative tokens",
        (t) => {
          t.values.push({ input: -1 });
          t.fields.tokens![0] = t.values.length - 1;
        },
      ],
      [
        "a token count that is not a number",
        (t) => {
          t.values.push({ input: "5" });
          t.fields.tokens![0] = t.values.length - 1;
        },
      ],
      [
        "an unknown token kind",
        (t) => {
          t.values.push({ input: 5, secret: 1 });
          t.fields.tokens![0] = t.values.length - 1;
        },
      ],
      [
        "tokens that are a list",
        (t) => {
          t.values.push([5]);
          t.fields.tokens![0] = t.values.length - 1;
        },
      ],
      [
        "tokens that are null",
        (t) => {
          t.values.push(null);
          t.fields.tokens![0] = t.values.length - 1;
        },
      ],
    ];
    // token counts the schema takes pass (the check has a fast path for them)
    const fine = good();
    fine.values.push({ input: 0, output: 12, cached: 3.5, cacheWrite: 1, reasoning: 2 }, {});
    fine.fields.tokens![0] = fine.values.length - 2;
    fine.fields.tokens![1] = fine.values.length - 1;
    expect(checkTable(fine, 3, 2)).toBeDefined();
    for (const [what, breakIt] of broken) {
      const t = good();
      breakIt(t);
      expect(checkTable(t, 3, 2), what).toBeUndefined();
    }
  });
});
