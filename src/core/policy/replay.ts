import type { ArmName } from "../model/arm.js";
import type { Attempt, Event } from "../model/attempt.js";
import { behaviorAt, initState, step, withTaskText } from "./evaluator.js";
import type { CompiledPolicy, Firing, SessionState } from "./types.js";

/**
 * Offline replay: runs the SAME `step()` the hook runs over every event of a stored attempt.
 *
 * - The attempt's task text is set before the first event (as the hook does once it knows it),
 *   so eligibility is decided from `attempt.taskText`.
 * - End of trace counts as a stop: when the trace has no `stop` event, a synthetic one with
 *   index `events.length` is stepped after the last event (Harbor/ATIF traces end without one,
 *   yet the agent did stop there, and stop rules must be screened).
 * - A tool call the trace shows as denied by a recorded hook (a `hook` event with decision
 *   `deny` after it, before the next call) did not run; every other call did, so its tracking
 *   is kept even when the replayed policy would deny it (behaviour markers describe the trace).
 * - The behaviour marker (B) of a policy is evaluated once, on the final state (after the
 *   last event, the synthetic stop included), so "no destructive command after the probe"
 *   and "the last build's log was searched" mean what they say.
 */

export interface ReplayFiring extends Firing {
  /** The firing came before the attempt's last agent action (the agent could still react). */
  beforeLastAction: boolean;
}

export interface PolicyOutcome {
  policyId: string;
  version: number;
  family: string;
  eligible: boolean;
  matched?: string;
  firings: number;
  behavior: boolean;
}

export interface AttemptReplay {
  attemptId: string;
  taskId: string;
  arm: ArmName;
  outcome: Attempt["outcome"];
  /** Eligible for at least one policy. */
  eligible: boolean;
  firings: ReplayFiring[];
  /** Index of the last tool call or agent message (undefined: the agent never acted). */
  lastAgentAction?: number;
  /** A stop was synthesised at the end of the trace. */
  syntheticStop: boolean;
  policies: PolicyOutcome[];
  finalState: SessionState;
}

function isAgentAction(e: Event): boolean {
  return e.kind === "tool_call" || (e.kind === "message" && e.role === "agent");
}

/** Indices of tool calls that a hook recorded in the trace denied. */
function deniedCalls(events: Event[]): Set<number> {
  const denied = new Set<number>();
  let call: Event | undefined;
  for (const e of events) {
    if (e.kind === "tool_call") call = e;
    else if (e.kind === "stop" || e.kind === "prompt") call = undefined;
    else if (
      call &&
      e.kind === "hook" &&
      e.hook?.decision === "deny" &&
      (e.callId === undefined || call.callId === undefined || e.callId === call.callId)
    ) {
      denied.add(call.index);
    }
  }
  return denied;
}

export function replayAttempt(policies: CompiledPolicy[], attempt: Attempt): AttemptReplay {
  const events = attempt.events;
  // An empty task text (some sources lack one) leaves eligibility to the first prompt event.
  let state = attempt.taskText ? withTaskText(initState(), attempt.taskText) : initState();
  const denied = deniedCalls(events);
  const firings: ReplayFiring[] = [];
  const counts = new Array<number>(policies.length).fill(0);
  let lastAgentAction: number | undefined;
  let hasStop = false;
  for (const e of events) {
    if (isAgentAction(e)) lastAgentAction = e.index;
    if (e.kind === "stop") hasStop = true;
  }
  const byKey = new Map(policies.map((p, i) => [p.key, i]));
  const run = (e: Event) => {
    const executed = e.kind === "tool_call" && !denied.has(e.index);
    const r = step(policies, state, e, { executed });
    state = r.state;
    for (const f of r.firings) {
      firings.push({
        ...f,
        beforeLastAction: lastAgentAction !== undefined && f.eventIndex < lastAgentAction,
      });
      const i = byKey.get(`${f.policyId}@${f.policyVersion}`);
      if (i !== undefined) counts[i]!++;
    }
  };
  for (const e of events) run(e);
  const end: Event = hasStop ? events[events.length - 1]! : { index: events.length, kind: "stop" };
  if (!hasStop) run(end);
  const finalState = state;
  const behavior = policies.map((p) => behaviorAt(p, finalState, end));

  const outcomes: PolicyOutcome[] = policies.map((p, i) => {
    const ps = state.policies[p.key];
    return {
      policyId: p.id,
      version: p.version,
      family: p.family,
      eligible: ps?.eligible === true,
      ...(ps?.matched === undefined ? {} : { matched: ps.matched }),
      firings: counts[i]!,
      behavior: behavior[i]!,
    };
  });
  return {
    attemptId: attempt.id,
    taskId: attempt.taskId,
    arm: attempt.arm,
    outcome: attempt.outcome,
    eligible: outcomes.some((o) => o.eligible),
    firings,
    ...(lastAgentAction === undefined ? {} : { lastAgentAction }),
    syntheticStop: !hasStop,
    policies: outcomes,
    finalState: state,
  };
}

export interface ReplaySummaryRow {
  policyId: string;
  version: number;
  family: string;
  attempts: number;
  eligible: number;
  fired: number;
  firings: number;
  /** Eligible attempts whose behaviour marker held (per attempt it is coded for all). */
  behavior: number;
}

/** Replays many attempts; reports progress and honours an AbortSignal between attempts. */
export function replayAttempts(
  policies: CompiledPolicy[],
  attempts: Attempt[],
  opts: { onProgress?: (done: number, total: number) => void; signal?: AbortSignal } = {},
): { attempts: AttemptReplay[]; summary: ReplaySummaryRow[] } {
  const out: AttemptReplay[] = [];
  for (const a of attempts) {
    opts.signal?.throwIfAborted();
    out.push(replayAttempt(policies, a));
    opts.onProgress?.(out.length, attempts.length);
  }
  const summary = policies.map((p, i) => {
    const row: ReplaySummaryRow = {
      policyId: p.id,
      version: p.version,
      family: p.family,
      attempts: out.length,
      eligible: 0,
      fired: 0,
      firings: 0,
      behavior: 0,
    };
    for (const r of out) {
      const o = r.policies[i]!;
      if (o.eligible) row.eligible++;
      if (o.firings > 0) row.fired++;
      row.firings += o.firings;
      if (o.eligible && o.behavior) row.behavior++;
    }
    return row;
  });
  return { attempts: out, summary };
}
