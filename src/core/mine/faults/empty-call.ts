import type { Attempt, Event } from "../../model/attempt.js";
import { isTimeout } from "../detectors/paths.js";
import { commandOf } from "../detectors/shell.js";
import { excerpt, type Fault } from "./types.js";

/** A call's arguments are empty: no command and no input, or an input of `{}` / `null` / `""`. */
function emptyArguments(ev: Event): boolean {
  if (ev.command) return false;
  const input = (ev.input ?? "").trim();
  return input === "" || /^(?:\{\s*\}|null|""|'')$/.test(input);
}

/**
 * Calls to a command runner that carry no command: a tool that took a command in the same
 * attempt, called with empty arguments. A model does not mean to run nothing; a response the
 * provider delivered without its arguments looks exactly like this.
 */
export function emptyCommandCalls(a: Attempt): Event[] {
  const calls = a.events.filter((e) => e.kind === "tool_call" && e.tool);
  const runners = new Set(
    calls.filter((c) => !emptyArguments(c) && commandOf(c)).map((c) => c.tool),
  );
  return calls.filter((c) => runners.has(c.tool) && emptyArguments(c));
}

/**
 * The provider delivered tool calls without their arguments, again and again, and the run
 * ended on them: two or more calls carried no command, and the run either ended on one or
 * hit its time limit. The agent never chose to run nothing, so the failure is the provider's
 * (evidence: the empty calls). One empty call alone is not enough: a model's own slip looks
 * the same once.
 */
export function emptyToolCalls(a: Attempt): Fault | undefined {
  if (a.outcome === "pass") return undefined;
  const empty = emptyCommandCalls(a);
  if (empty.length < 2) return undefined;
  const lastCall = a.events.filter((e) => e.kind === "tool_call").at(-1);
  const endedOnOne = lastCall !== undefined && empty.includes(lastCall);
  if (!endedOnOne && !isTimeout(a)) return undefined;
  const where = endedOnOne
    ? "the run ended on a call with no arguments"
    : `the run hit its time limit after ${empty.length} such calls`;
  return {
    reason: "provider_fault",
    code: "empty-tool-call",
    detail: `the provider delivered ${empty.length} command call(s) without a command; ${where}`,
    evidence: empty.slice(-3).map((c) => ({
      eventIndex: c.index,
      excerpt: excerpt(`${c.tool} call with arguments ${c.input?.trim() || "(none)"}`),
    })),
  };
}
