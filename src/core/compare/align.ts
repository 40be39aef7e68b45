import { type Attempt, type Event, sameTask } from "../model/attempt.js";
import { toolSummary } from "./summary.js";

/** One step of an attempt: a tool call and (when paired) its result. */
export interface Step {
  /** Index of the tool call event. */
  eventIndex: number;
  /** What aligns steps: the command (white space normalised) or tool + summarised input. */
  key: string;
  call: Event;
  result?: Event;
}

/** One row of two attempts side by side. */
export interface AlignedRow {
  left?: Step;
  right?: Step;
  /** Both sides ran the same command. */
  same: boolean;
}

export interface Alignment {
  rows: AlignedRow[];
  /** Index in `rows` of the first row where the two attempts differ; -1 when identical. */
  firstDivergence: number;
}

/** The tool-call steps of an attempt, each with its result (by call id, else the next result). */
export function stepsOf(a: Attempt): Step[] {
  const steps: Step[] = [];
  const byCall = new Map<string, Step>();
  let last: Step | undefined;
  for (const e of a.events) {
    if (e.kind === "tool_call") {
      const key = (e.command ?? toolSummary(e)).replace(/\s+/g, " ").trim();
      last = { eventIndex: e.index, key, call: e };
      steps.push(last);
      if (e.callId) byCall.set(e.callId, last);
    } else if (e.kind === "tool_result") {
      const s = (e.callId ? byCall.get(e.callId) : undefined) ?? last;
      if (s && !s.result) s.result = e;
    }
  }
  return steps;
}

/** Above this many steps on a side, steps past it align by position only. */
const LCS_LIMIT = 3000;

/**
 * Aligns two attempts step by step: a longest common subsequence of their step keys, so the
 * same commands sit on one row and what only one side ran gets a row of its own.
 */
export function alignAttempts(left: Attempt, right: Attempt): Alignment {
  const a = stepsOf(left).slice(0, LCS_LIMIT);
  const b = stepsOf(right).slice(0, LCS_LIMIT);
  const n = a.length;
  const m = b.length;
  // suffix LCS lengths, one row of (m + 1) per step of a
  const dp = new Array<Uint16Array>(n + 1);
  for (let i = n; i >= 0; i--) {
    const row = new Uint16Array(m + 1);
    if (i < n) {
      const below = dp[i + 1]!;
      for (let j = m - 1; j >= 0; j--)
        row[j] = a[i]!.key === b[j]!.key ? below[j + 1]! + 1 : Math.max(below[j]!, row[j + 1]!);
    }
    dp[i] = row;
  }
  const rows: AlignedRow[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i]!.key === b[j]!.key) {
      rows.push({ left: a[i++], right: b[j++], same: true });
    } else if (j >= m || (i < n && dp[i + 1]![j]! >= dp[i]![j + 1]!)) {
      rows.push({ left: a[i++], same: false });
    } else {
      rows.push({ right: b[j++], same: false });
    }
  }
  return { rows, firstDivergence: rows.findIndex((r) => !r.same) };
}

/**
 * The passing attempt of the same task (and version, where both record one) that matches best: same model and agent first (the
 * closest control for "what did this one do differently"), then the one sharing the most
 * commands, then the smallest id. Undefined when no attempt of the task passed.
 */
export function passingSibling(
  attempt: Attempt,
  attempts: readonly Attempt[],
): Attempt | undefined {
  const pass = attempts.filter(
    (a) => a.id !== attempt.id && a.outcome === "pass" && sameTask(a, attempt),
  );
  if (pass.length <= 1) return pass[0];
  const kin = (a: Attempt) =>
    ((a.model ?? "") === (attempt.model ?? "") ? 2 : 0) +
    ((a.agent ?? "") === (attempt.agent ?? "") ? 1 : 0);
  const mine = new Set(stepsOf(attempt).map((s) => s.key));
  const shared = (a: Attempt) => stepsOf(a).filter((s) => mine.has(s.key)).length;
  return pass
    .map((a) => ({ a, kin: kin(a), shared: shared(a) }))
    .sort((x, y) => y.kin - x.kin || y.shared - x.shared || (x.a.id < y.a.id ? -1 : 1))[0]?.a;
}
