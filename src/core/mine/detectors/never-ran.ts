import { refusedAction } from "../../ingest/observation-template.js";
import type { Attempt, Event } from "../../model/attempt.js";
import { commandOf, isWrite, outputOf, programNotFound } from "./shell.js";
import { typedTogether } from "./typed-together.js";

/**
 * The agent's harness refused the command before it ran (OpenClaw's exec preflight: "complex
 * interpreter invocation detected; refusing to run without script preflight validation").
 */
const HARNESS_REFUSED =
  /^\{\s*"status"\s*:\s*"error"[\s\S]{0,200}?"error"\s*:\s*"[^"]{0,200}\brefusing to run\b/;

/**
 * pytest could not find the path or test id it was given (run from the wrong folder, a
 * misspelt name): the check tested nothing. ("no tests ran" alone is no such sign: a run that
 * tests pytest itself prints it for the sessions it starts.)
 */
const NOTHING_TESTED = /^ERROR: (?:file or directory )?not found: /m;

/** The shell could not parse the command: nothing of it ran. */
const SHELL_SYNTAX =
  /syntax error near unexpected token|unexpected EOF while looking for matching|syntax error: unexpected end of file/i;

/**
 * Whether the harness refused the reply the call came in for its form (more than one action,
 * a malformed reply), whatever the command was: the same command sent alone would have run.
 */
export function formatRefused(a: Attempt, call: Event): boolean {
  return refusedAction(outputOf(a, call));
}

/** Whether the agent's harness refused the call, or the reply it came in, before it ran. */
export function harnessRefused(a: Attempt, call: Event): boolean {
  return formatRefused(a, call) || HARNESS_REFUSED.test(outputOf(a, call));
}

/**
 * Whether a call never ran: its program was not found, the shell could not parse it, or the
 * harness refused it or the reply it came in (more than one action, a malformed reply, a
 * command its preflight would not run), or the harness typed it onto one line with its
 * neighbours (typed-together.ts); a test run that found no test to run checked nothing. Such a call
 * checked nothing and wrote nothing, and changing its arguments changes nothing (the program
 * is still missing, the reply still arrives in a form the shell or the harness cannot read).
 * One reading for the loop detector and the stop readings.
 */
export function neverRan(a: Attempt, call: Event): boolean {
  if (typedTogether(a).has(call.index)) return true;
  if (harnessRefused(a, call)) return true;
  if (commandOf(call) === undefined) return false;
  const out = outputOf(a, call);
  if (programNotFound(a, call) || SHELL_SYNTAX.test(out)) return true;
  // a test id not found fails the test run, not a write the same call made before it
  return NOTHING_TESTED.test(out) && !isWrite(call);
}
