import type { Attempt, Event } from "../../model/attempt.js";
import { normalizeEvidence } from "../mechanisms.js";
import { formatRefused, neverRan } from "./never-ran.js";
import { callText, errorText, samePath, toolFailed } from "./paths.js";
import {
  callSucceeded,
  commandOf,
  guardedByFalseCondition,
  resultOf,
  toolCalls,
  writtenPaths,
} from "./shell.js";
import type { Detector } from "./types.js";

/** Minimum identical failing calls that count as a loop. */
export const LOOP_MIN = 3;
/**
 * Repeats that make the loop the mechanism of the failure (a loop that eats the budget),
 * not just a sign of struggle: three tries of a hard step are normal flailing.
 */
export const LOOP_MECHANISM_MIN = 5;

/** A variable assignment or `export` as a whole list element (`export JAVA_HOME=/usr/lib/jvm`). */
const ASSIGNMENT = /^(?:export\s+)?\w+=\S*$/;

/** The command without its leading assignments (`export A=b && mvn test` → `mvn test`). */
function withoutAssignments(cmd: string): string {
  let rest = cmd.trim();
  for (;;) {
    const m = /&&|;/.exec(rest);
    if (!m || !ASSIGNMENT.test(rest.slice(0, m.index).trim())) return rest;
    rest = rest.slice(m.index + m[0].length).trim();
  }
}

/**
 * A number given as an option's value (`-n 50`, `--lines=500`, `-50`): the same look at more
 * or less of it. Other numbers (a URL's `/items/6`, an id, a version) name another thing.
 */
const OPTION_NUMBER = /(^|\s)(-{1,2}[A-Za-z][\w-]*(?:=|\s+)|-)\d+(?=\s|$)/g;

/**
 * A call as the approach it takes, for telling a retry from a new attempt: the command with
 * leading variable assignments dropped (the same build retried under another `JAVA_HOME` is
 * the same call), or the tool's input, normalized as evidence is (numbers, paths and hashes
 * aside: the same failing build on another line range is the same approach).
 */
export function approachOf(call: Event): string {
  const cmd = commandOf(call);
  return normalizeEvidence(cmd !== undefined ? withoutAssignments(cmd) : callText(call), 400);
}

/**
 * A look as the very call it is, for telling the same look from another: verbatim but for
 * spacing and a number given as an option's value (`head -n 50` and `head -n 500` are one
 * look; `/items/1` and `/items/6`, ids and versions are not). A look that succeeded is the
 * same look only with the same target; a failing call's approach is read by `approachOf`.
 */
export function lookOf(call: Event): string {
  const cmd = commandOf(call);
  const text = cmd !== undefined ? withoutAssignments(cmd) : callText(call);
  return text.replace(OPTION_NUMBER, "$1$2#").replace(/\s+/g, " ").trim().slice(0, 400);
}

/**
 * Whether a loop of failing writes was got past: every call of the loop tried to write a file
 * and each file it tried was written by a later call that succeeded (a failing heredoc
 * followed by an `echo` of the same file). Such a loop cost turns but not the deliverable,
 * so it is a sign of struggle, not the mechanism of the failure.
 */
export function loopGotPast(a: Attempt, calls: readonly Event[]): boolean {
  const firstTry = new Map<string, number>();
  for (const c of calls) {
    const paths = writtenPaths(c);
    if (paths.length === 0) return false;
    for (const p of paths) if (!firstTry.has(p)) firstTry.set(p, c.index);
  }
  const inLoop = new Set(calls.map((c) => c.index));
  const others = toolCalls(a).filter((c) => !inLoop.has(c.index));
  return [...firstTry].every(([path, first]) =>
    others.some(
      (c) =>
        c.index > first &&
        writtenPaths(c).some((w) => samePath(path, w) || samePath(w, path)) &&
        callSucceeded(a, c),
    ),
  );
}

/**
 * Whether every call of a loop was refused by the agent's harness for its reply's form (more
 * than one action, a malformed reply: `formatRefused`) and the run got past them: a later
 * reply's call ran. The refusals cost turns, not the work: the agent went on to act, so they
 * are no loop it was stuck in and no sign for the failure. A refusal of the command itself (a
 * preflight that will not run it) is not got past by another command running. A reply is the
 * calls between two of the agent's messages (the other blocks of a refused reply are refused
 * with it).
 */
function refusalsGotPast(a: Attempt, calls: readonly Event[]): boolean {
  const last = calls.at(-1);
  if (!last || !calls.every((c) => formatRefused(a, c))) return false;
  let newReply = false;
  for (const e of a.events.slice(last.index + 1)) {
    if (e.kind === "message" && e.role === "agent" && /\S/.test(e.input ?? "")) newReply = true;
    if (newReply && e.kind === "tool_call" && !neverRan(a, e)) return true;
  }
  return false;
}

/**
 * The same tool failing with the same error again and again, whatever the tool (shell,
 * read/write/edit, browser, MCP or any function name): keyed by tool name and the
 * normalized error text, so a loop of identical non-shell failures is seen as that
 * tool's repeated error. Loops come out largest first.
 */
export const repeatedFailure: Detector = {
  id: "loop.repeated-failure",
  description: `the same tool error repeated ${LOOP_MIN}+ times without a change of approach`,
  detect(attempt) {
    const seen = new Map<
      string,
      {
        idx: number[];
        calls: Event[];
        tool: string;
        error: string;
        inputs: Set<string>;
        first: string;
        neverRan: boolean;
      }
    >();
    for (const call of toolCalls(attempt)) {
      if (!toolFailed(attempt, call) || guardedByFalseCondition(attempt, call)) continue;
      const tool = call.tool ?? "tool";
      const error = normalizeEvidence(errorText(resultOf(attempt, call)) || "failed", 160);
      const key = `${tool}\u0000${error}`;
      const entry = seen.get(key) ?? {
        idx: [],
        calls: [],
        tool,
        error,
        inputs: new Set<string>(),
        first: callText(call).replace(/\s+/g, " ").trim(),
        neverRan: true,
      };
      entry.idx.push(call.index);
      entry.calls.push(call);
      entry.inputs.add(approachOf(call));
      entry.neverRan &&= neverRan(attempt, call);
      seen.set(key, entry);
    }
    return (
      [...seen.values()]
        // Without a change of approach: mostly the same input again, not new attempts (or
        // calls that never ran, whatever their arguments)
        .filter(
          (e) =>
            e.idx.length >= LOOP_MIN &&
            (e.neverRan || e.inputs.size <= e.idx.length / 2) &&
            !refusalsGotPast(attempt, e.calls),
        )
        .sort((x, y) => y.idx.length - x.idx.length || (x.tool < y.tool ? -1 : 1))
        .map((e) => {
          const past = loopGotPast(attempt, e.calls);
          return {
            eventIndices: e.idx,
            reason: `${e.idx.length}× ${e.tool} failed: ${e.error.slice(0, 100)} (on: ${e.first.slice(0, 80)})${past ? "; each file it tried was written later by a call that succeeded" : ""}`,
            signature: `${e.tool}: ${e.error}`.slice(0, 200),
            ...(e.idx.length >= LOOP_MECHANISM_MIN && !past
              ? { mechanism: "repeated-tool-error" }
              : {}),
          };
        })
    );
  },
};
