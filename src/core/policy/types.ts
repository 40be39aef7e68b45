import type { Event } from "../model/attempt.js";

/**
 * The contract between the policy language, the evaluator, offline replay and the live
 * hook. One evaluator (`step` in evaluator.ts) consumes normalized Events from both paths.
 */

/** Harness points at which rules run. `tool` = before a tool call; `tool_result` = after. */
export type RulePoint = "prompt" | "tool" | "tool_result" | "stop";

/** Maps a normalized event kind to the rule point it triggers (others only update tracking). */
export function pointOf(event: Pick<Event, "kind">): RulePoint | undefined {
  switch (event.kind) {
    case "prompt":
      return "prompt";
    case "tool_call":
      return "tool";
    case "tool_result":
      return "tool_result";
    case "stop":
      return "stop";
    default:
      return undefined;
  }
}

/** One rule firing (co-firings on one event are all kept). */
export interface Firing {
  policyId: string;
  policyVersion: number;
  ruleId: string;
  point: RulePoint;
  eventIndex: number;
  action: "instruct" | "deny";
  message: string;
  /** The policy is in observe mode: logged, never shown to the agent (absent: enforced). */
  mode?: "observe";
  /** The firing is a step of the rule's escalation ladder (a deny, or a blocked stop). */
  escalated?: "deny" | "block";
}

/** What the harness should do with the event after every firing is combined. */
export type Verdict =
  | { action: "allow" }
  | { action: "instruct"; message: string }
  | { action: "deny"; message: string };

/** Per-policy session state: JSON-serialisable (the hook keeps it in a file per session). */
export interface PolicyState {
  /** undefined until the task text is known; then fixed for the session. */
  eligible?: boolean;
  /** The eligibility phrase that matched (for audits and logs). */
  matched?: string;
  flags: Record<string, boolean>;
  /** Step numbers recorded by tracking rules (event index at the time). */
  steps: Record<string, number>;
  counters: Record<string, number>;
  /** Nudges used per rule id. */
  nudges: Record<string, number>;
  /** Values captured from the task text per values list (set with eligibility; then fixed). */
  values?: Record<string, string[]>;
  /** Captured values marked per mark name (`mark` tracking). */
  marks?: Record<string, string[]>;
  /** Last streak key per streak counter. */
  keys?: Record<string, string>;
  /** Per rule id: the step of its last firing whose behaviour has not shown yet. */
  pending?: Record<string, number>;
  /** Per rule id: instructions ignored in a row (reset when the behaviour shows). */
  ignored?: Record<string, number>;
  /** Per rule id: escalated firings made (bounded by the rule's cap). */
  escalated?: Record<string, number>;
}

export interface SessionState {
  // `policies` is keyed by CompiledPolicy.key (`id@version`).
  /** Task text, once known (first prompt event, or read from the transcript). */
  taskText?: string;
  /** Number of events seen: the next event's step number. */
  step: number;
  /** Epoch ms of the first event that carried a timestamp (for `elapsed` conditions). */
  startedAt?: number;
  policies: Record<string, PolicyState>;
}

export interface StepResult {
  state: SessionState;
  firings: Firing[];
  verdict: Verdict;
  /** Tracking rules that changed state on this event ("policyId@version/trackId"). */
  tracked: string[];
  /**
   * What would have been answered had observe-mode firings been enforced; set only when an
   * observe-mode policy fired (`verdict` is what is answered).
   */
  observed?: Verdict;
  /** Rules ("policyId@version/ruleId") whose pending instruction was followed at this event. */
  followed: string[];
  /** Rules whose condition held again (or the agent stopped) with their instruction pending. */
  ignored: string[];
}

/** A compiled predicate over the current event and one policy's state (see condition.ts). */
export type CompiledPredicate = (ctx: {
  ev: Event;
  ps: PolicyState;
  now: number;
  elapsedS?: number;
}) => boolean;

export interface CompiledTrack {
  id: string;
  /** undefined = every event. */
  at?: ReadonlySet<RulePoint>;
  when: CompiledPredicate;
  set: string[];
  clear: string[];
  record: string[];
  recordFirst: string[];
  increment: string[];
  mark: { values: string; as: string; mode: "path" | "name" | "written" }[];
  streak?: { counter: string; key: "output" | "command" | "input" | "text" };
}

export interface CompiledRule {
  id: string;
  at: RulePoint;
  when: CompiledPredicate;
  action: "instruct" | "deny";
  message: string;
  /** Effective limit: the rule's nudgeLimit, else 1, else unlimited when it has a release. */
  limit: number;
  release?: CompiledPredicate;
  escalate?: { after: number; action: "deny" | "block"; cap: number };
}

/**
 * A policy ready for `step()`: every pattern compiled once. `candidate` is the validated
 * source (typed loosely here so this contract file stays free of zod).
 */
export interface CompiledPolicy {
  id: string;
  /** `id@version`: the key of this policy's entry in SessionState.policies. */
  key: string;
  version: number;
  family: string;
  /** File it was loaded from, when loaded from disk. */
  file?: string;
  eligibility: { allOf: RegExp[]; anyOf: RegExp[]; noneOf: RegExp[] };
  /** Task-value lists captured from the task text when it is known. */
  values: { id: string; re: RegExp }[];
  track: CompiledTrack[];
  rules: Record<RulePoint, CompiledRule[]>;
  behavior: CompiledPredicate;
  /** `observe`: firings are logged, never answered (the candidate's mode, or the hook's --observe). */
  mode: "enforce" | "observe";
  /** Rules of any point that escalate by blocking the stop. */
  blockers: CompiledRule[];
  candidate: import("./schema.js").Candidate;
}
