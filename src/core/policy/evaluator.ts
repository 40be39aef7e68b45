import type { Event } from "../model/attempt.js";
import { capText, MATCH_CAP } from "./patterns.js";
import type {
  CompiledPolicy,
  CompiledRule,
  Firing,
  PolicyState,
  SessionState,
  StepResult,
  Verdict,
} from "./types.js";
import { pointOf } from "./types.js";
import { captureValues, eventMentions, streakKey } from "./values.js";

/**
 * The ONE evaluator: offline replay and the live hook both call `step` with normalized
 * events. Pure and synchronous: the input state is never mutated (copy-on-write per policy).
 *
 * Order within one event:
 *  1. the first user prompt sets the task text (unless already known); eligibility of every
 *     policy is decided once, as soon as the task text is known;
 *  2. tracking rules run (every policy, eligible or not, in file order, each seeing the
 *     previous one's updates) — so behaviour markers are coded the same in every arm;
 *  3. rules at the event's point fire for eligible policies when their condition holds, their
 *     release does not hold and their nudge limit is not used up; all firings are kept;
 *  4. verdict: any deny wins (deny messages joined), else instruct messages joined.
 *     A denied tool call does not happen, so the tracking updates of that event are undone
 *     (unless `opts.executed` says the call ran anyway, as in a replayed baseline trace).
 * Steps recorded by tracking rules and `now` in `steps` conditions are `state.step`
 * (the count of events seen before this one); firings carry `event.index`.
 */

const EMPTY: PolicyState = Object.freeze({
  flags: Object.freeze(dict()),
  steps: Object.freeze(dict()),
  counters: Object.freeze(dict()),
  nudges: Object.freeze(dict()),
}) as PolicyState;

/**
 * A name → value map without a prototype: track and rule names are the candidate's words,
 * so `toString`, `constructor` or `__proto__` must be plain keys, never inherited members.
 */
function dict<T>(from?: Record<string, T>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, from);
}

/** A state (e.g. parsed from a file) whose maps are all prototype-free (see dict). */
export function detachState(state: SessionState): SessionState {
  const policies = dict<PolicyState>();
  for (const [k, ps] of Object.entries(state.policies)) policies[k] = copyPs(ps);
  return { ...state, policies };
}

/** The policies in observe mode (the hook's `--observe`): evaluated and logged, never answered. */
export function observeAll(policies: CompiledPolicy[]): CompiledPolicy[] {
  return policies.map((p) => (p.mode === "observe" ? p : { ...p, mode: "observe" }));
}

export function initState(): SessionState {
  return { step: 0, policies: {} };
}

/** Sets the task text when it is not known yet (the hook reading it from a transcript). */
export function withTaskText(state: SessionState, text: string): SessionState {
  return state.taskText === undefined ? { ...state, taskText: text } : state;
}

function copyPs(ps: PolicyState): PolicyState {
  const out: PolicyState = {
    ...ps,
    flags: dict(ps.flags),
    steps: dict(ps.steps),
    counters: dict(ps.counters),
    nudges: dict(ps.nudges),
  };
  if (ps.marks) {
    out.marks = dict();
    for (const [k, v] of Object.entries(ps.marks)) out.marks[k] = [...v];
  }
  if (ps.keys) out.keys = dict(ps.keys);
  if (ps.pending) out.pending = dict(ps.pending);
  if (ps.ignored) out.ignored = dict(ps.ignored);
  if (ps.escalated) out.escalated = dict(ps.escalated);
  return out;
}

/** The task values of a policy, captured from the (capped) task text. */
export function valuesOf(p: CompiledPolicy, taskText: string): Record<string, string[]> {
  const text = capText(taskText);
  return Object.fromEntries(p.values.map((v) => [v.id, captureValues(v.re, text)]));
}

function streakText(ev: Event, key: "output" | "command" | "input" | "text"): string {
  if (key !== "text") return `${ev.tool ?? ""}\n${ev[key] ?? ""}`;
  return `${ev.tool ?? ""}\n${ev.command ?? ""}\n${ev.input ?? ""}\n${ev.output ?? ""}`;
}

/** Eligibility of one policy for a task text (E): all-of, any-of (if any), none-of. */
export function eligibilityOf(
  p: CompiledPolicy,
  taskText: string,
): { eligible: boolean; matched?: string } {
  const text = capText(taskText);
  const e = p.eligibility;
  let matched: string | undefined;
  for (const re of e.allOf) {
    const m = re.exec(text);
    if (!m) return { eligible: false };
    matched ??= m[0];
  }
  if (e.anyOf.length > 0) {
    let hit: RegExpExecArray | null = null;
    for (const re of e.anyOf) {
      hit = re.exec(text);
      if (hit) break;
    }
    if (!hit) return { eligible: false };
    matched = hit[0];
  }
  for (const re of e.noneOf) if (re.test(text)) return { eligible: false };
  return matched === undefined ? { eligible: true } : { eligible: true, matched };
}

/**
 * Tool input and output are matched on their head and tail (MATCH_CAP); the command is
 * matched whole, so nothing can hide a destructive command in its middle (patterns run in
 * linear time, regex.ts).
 */
function capped(ev: Event): Event {
  const long = (s: string | undefined) => s !== undefined && s.length > MATCH_CAP;
  if (!long(ev.input) && !long(ev.output)) return ev;
  return {
    ...ev,
    input: ev.input === undefined ? undefined : capText(ev.input),
    output: ev.output === undefined ? undefined : capText(ev.output),
  };
}

const ALLOW: Verdict = Object.freeze({ action: "allow" }) as Verdict;

export interface StepOptions {
  /**
   * The tool call is known to have run (replaying a trace in which it was not denied): a
   * deny verdict then keeps the event's tracking, so behaviour markers describe what happened.
   */
  executed?: boolean;
}

export function step(
  policies: CompiledPolicy[],
  state: SessionState,
  event: Event,
  opts: StepOptions = {},
): StepResult {
  const ev = capped(event);
  const now = state.step;
  const point = pointOf(ev);
  let taskText = state.taskText;
  if (
    taskText === undefined &&
    ev.kind === "prompt" &&
    ev.role !== "agent" &&
    ev.role !== "system"
  ) {
    taskText = event.input ?? "";
  }
  const before = state.policies;
  const after: Record<string, PolicyState> = { ...before };
  const tracked: string[] = [];
  // Elapsed time from event timestamps: replay has the trace's, the hook stamps its own.
  const at = ev.ts === undefined ? Number.NaN : Date.parse(ev.ts);
  const startedAt = state.startedAt ?? (Number.isFinite(at) ? at : undefined);
  const elapsedS =
    startedAt !== undefined && Number.isFinite(at)
      ? Math.max(0, (at - startedAt) / 1000)
      : undefined;
  const ctx: { ev: Event; ps: PolicyState; now: number; elapsedS?: number } = {
    ev,
    ps: EMPTY,
    now,
    ...(elapsedS === undefined ? {} : { elapsedS }),
  };

  for (const p of policies) {
    let ps = before[p.key] ?? EMPTY;
    let own = false;
    if (ps.eligible === undefined && taskText !== undefined) {
      const r = eligibilityOf(p, taskText);
      ps = {
        ...copyPs(ps),
        eligible: r.eligible,
        ...(r.matched === undefined ? {} : { matched: r.matched }),
        ...(p.values.length === 0 ? {} : { values: valuesOf(p, taskText) }),
      };
      own = true;
    }
    for (const t of p.track) {
      if (t.at !== undefined && (point === undefined || !t.at.has(point))) continue;
      ctx.ps = ps;
      if (!t.when(ctx)) continue;
      if (!own) {
        ps = copyPs(ps);
        own = true;
      }
      for (const n of t.set) ps.flags[n] = true;
      for (const n of t.clear) delete ps.flags[n];
      for (const n of t.record) ps.steps[n] = now;
      for (const n of t.recordFirst) if (ps.steps[n] === undefined) ps.steps[n] = now;
      for (const n of t.increment) ps.counters[n] = (ps.counters[n] ?? 0) + 1;
      for (const m of t.mark) {
        if (!ps.marks) ps.marks = dict();
        const have = ps.marks[m.as] ?? [];
        const add = (ps.values?.[m.values] ?? []).filter(
          (v) => !have.includes(v) && eventMentions(ev, v, m.mode),
        );
        if (add.length > 0) ps.marks[m.as] = [...have, ...add];
      }
      if (t.streak) {
        const { counter, key } = t.streak;
        const k = streakKey(streakText(ev, key));
        if (!ps.keys) ps.keys = dict();
        const keys = ps.keys;
        ps.counters[counter] = keys[counter] === k ? (ps.counters[counter] ?? 0) + 1 : 1;
        keys[counter] = k;
      }
      tracked.push(`${p.key}/${t.id}`);
    }
    if (own) after[p.key] = ps;
  }

  // Instructions followed: a policy's behaviour marker holds at an event after a firing.
  const followed: string[] = [];
  for (const p of policies) {
    const ps0 = after[p.key];
    if (ps0?.pending === undefined || Object.keys(ps0.pending).length === 0) continue;
    ctx.ps = ps0;
    if (!p.behavior(ctx)) continue;
    const ps = ps0 === before[p.key] ? copyPs(ps0) : ps0;
    for (const id of Object.keys(ps0.pending)) followed.push(`${p.key}/${id}`);
    ps.pending = dict();
    ps.ignored = dict();
    after[p.key] = ps;
  }

  const firings: Firing[] = [];
  const ignored: string[] = [];
  if (point !== undefined) {
    for (const p of policies) {
      const rules = p.rules[point];
      const blockers = point === "stop" ? p.blockers : NONE;
      if (rules.length === 0 && blockers.length === 0) continue;
      let ps = after[p.key] ?? EMPTY;
      if (ps.eligible !== true) continue;
      let own = ps !== before[p.key] && ps !== EMPTY;
      const fire = (r: CompiledRule, action: "instruct" | "deny", escalated?: "deny" | "block") => {
        firings.push({
          policyId: p.id,
          policyVersion: p.version,
          ruleId: r.id,
          point,
          eventIndex: event.index,
          action,
          message: r.message,
          ...(p.mode === "observe" ? { mode: "observe" as const } : {}),
          ...(escalated ? { escalated } : {}),
        });
      };
      const writable = (): PolicyState => {
        if (!own) {
          ps = copyPs(ps);
          own = true;
        }
        return ps;
      };
      for (const r of rules) {
        const pending = ps.pending?.[r.id] !== undefined;
        const free = (ps.nudges[r.id] ?? 0) < r.limit;
        if (!free && !pending && !r.escalate) continue;
        ctx.ps = ps;
        if (r.release?.(ctx)) continue;
        if (!r.when(ctx)) continue;
        const w = writable();
        const n = pending ? bump(w, "ignored", r.id) : (w.ignored?.[r.id] ?? 0);
        if (pending) ignored.push(`${p.key}/${r.id}`);
        const esc = r.escalate;
        // a `block` ladder escalates only at a stop (the blockers below, or a stop rule)
        const ladder = esc && (esc.action === "deny" || point === "stop");
        if (ladder && n >= esc.after && (w.escalated?.[r.id] ?? 0) < esc.cap) {
          bump(w, "escalated", r.id);
          setPending(w, r.id, now);
          if (esc.action === "deny") fire(r, "deny", "deny");
          else fire(r, r.action, "block");
          continue;
        }
        if (!free) continue;
        w.nudges[r.id] = (w.nudges[r.id] ?? 0) + 1;
        setPending(w, r.id, now);
        fire(r, r.action);
      }
      // A stop with an ignored instruction pending: the stop is one more occasion.
      for (const r of blockers) {
        if (ps.pending?.[r.id] === undefined) continue;
        const w = writable();
        const n = bump(w, "ignored", r.id);
        ignored.push(`${p.key}/${r.id}`);
        const esc = r.escalate as NonNullable<CompiledRule["escalate"]>;
        if (n < esc.after || (w.escalated?.[r.id] ?? 0) >= esc.cap) continue;
        bump(w, "escalated", r.id);
        setPending(w, r.id, now);
        fire(r, "instruct", "block");
      }
      after[p.key] = ps;
    }
  }

  const verdictOf = (fs: readonly Firing[]): Verdict => {
    if (fs.length === 0) return ALLOW;
    const denies = fs.filter((f) => f.action === "deny");
    return denies.length > 0
      ? { action: "deny", message: denies.map((f) => f.message).join("\n\n") }
      : { action: "instruct", message: fs.map((f) => f.message).join("\n\n") };
  };
  const observing = firings.some((f) => f.mode === "observe");
  const verdict = verdictOf(observing ? firings.filter((f) => f.mode !== "observe") : firings);
  // A denied call never runs: keep eligibility and the rules' counts, drop this event's tracking.
  if (verdict.action === "deny") {
    for (const p of opts.executed ? [] : policies) {
      const a = after[p.key];
      const b = before[p.key];
      if (a === undefined || a === b || tracked.length === 0) continue;
      if (!tracked.some((t) => t.startsWith(`${p.key}/`))) continue;
      const base = b ?? EMPTY;
      after[p.key] = {
        ...copyPs(base),
        eligible: a.eligible,
        ...(a.matched === undefined ? {} : { matched: a.matched }),
        ...(a.values === undefined ? {} : { values: a.values }),
        nudges: a.nudges,
        ...(a.pending === undefined ? {} : { pending: a.pending }),
        ...(a.ignored === undefined ? {} : { ignored: a.ignored }),
        ...(a.escalated === undefined ? {} : { escalated: a.escalated }),
      };
    }
    if (!opts.executed) tracked.length = 0;
  }

  const next: SessionState = { step: now + 1, policies: after };
  if (startedAt !== undefined) next.startedAt = startedAt;
  if (taskText !== undefined) next.taskText = taskText;
  const out: StepResult = { state: next, firings, verdict, tracked, followed, ignored };
  if (observing) out.observed = verdictOf(firings);
  return out;
}

const NONE: readonly CompiledRule[] = Object.freeze([]);

/** Adds one to a per-rule count of a (writable) policy state; the new count. */
function bump(ps: PolicyState, field: "ignored" | "escalated", id: string): number {
  const m = ps[field] ?? dict<number>();
  ps[field] = m;
  m[id] = (m[id] ?? 0) + 1;
  return m[id];
}

function setPending(ps: PolicyState, id: string, at: number): void {
  ps.pending ??= dict<number>();
  ps.pending[id] = at;
}

/** Whether a policy's behaviour marker (B) holds at this event, given the state after it. */
export function behaviorAt(p: CompiledPolicy, state: SessionState, event: Event): boolean {
  return p.behavior({ ev: capped(event), ps: state.policies[p.key] ?? EMPTY, now: state.step - 1 });
}
