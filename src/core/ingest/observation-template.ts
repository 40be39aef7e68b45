import { stripVTControlCharacters } from "node:util";

/**
 * mini-SWE-agent's observation templates, kept verbatim by its own trajectory and by Harbor's
 * ATIF copy of it:
 * - a command's result: `<returncode>N</returncode>` then `<output>…</output>`, or
 *   `<output_head>` / `<elided_chars>` / `<output_tail>` when long;
 * - a command its time limit killed: "The last command <command>…</command> timed out and has
 *   been killed." (no return code);
 * - a reply the harness refused to run: "Please always provide EXACTLY ONE action in triple
 *   backticks, found N actions." (SWE-agent's "Your output was not formatted correctly" is the
 *   same refusal). Harbor's converter still records the reply's first block as a tool call:
 *   that call never ran. In tool-calling mode (mini-SWE-agent 2) a result is JSON
 *   (`{"returncode", "output", "exception_info"}`, read by json-result.ts) and a call the
 *   harness did not run says "action was not executed".
 */
export interface Observation {
  exitCode?: number;
  output: string;
  timedOut: boolean;
  refused: boolean;
}

const TIMED_OUT = /timed out and has been killed/;
const REFUSED =
  /^\s*(?:Please always provide EXACTLY ONE action in triple backticks|Your output was not formatted correctly|action was not executed$)/;

/** Whether a tool result is the harness refusing the reply's action (it never ran). */
export const refusedAction = (output: string): boolean => REFUSED.test(output);

/** The text between `<tag>` and `</tag>`, if both are there. */
function tag(text: string, name: string): string | undefined {
  const open = `<${name}>`;
  const i = text.indexOf(open);
  if (i === -1) return undefined;
  const j = text.indexOf(`</${name}>`, i + open.length);
  return j === -1 ? undefined : text.slice(i + open.length, j);
}

const trimNl = (s: string) => s.replace(/^\n/, "").replace(/\n$/, "");

/** An observation: exit code and output (head and tail joined around the elided count). */
export function observation(text: string): Observation {
  const rc = tag(text, "returncode")?.trim();
  const exitCode = rc !== undefined && /^-?\d+$/.test(rc) ? Number(rc) : undefined;
  const head = tag(text, "output_head");
  const tail = tag(text, "output_tail");
  let output: string;
  if (head !== undefined || tail !== undefined) {
    const elided = tag(text, "elided_chars")?.trim();
    output = `${trimNl(head ?? "")}\n[… ${elided ?? "some characters elided"} …]\n${trimNl(tail ?? "")}`;
  } else output = trimNl(tag(text, "output") ?? text);
  // a timeout names the command it killed; there is no return code
  const timedOut = exitCode === undefined && TIMED_OUT.test(text);
  const refused = exitCode === undefined && refusedAction(text);
  return { exitCode, output: stripVTControlCharacters(output), timedOut, refused };
}

/**
 * A tool result written in one of the templates (a result some other agent printed is none):
 * one that opens with its return code, a timeout notice or a refusal.
 */
export function templatedObservation(text: string): Observation | undefined {
  if (
    !/^\s*<returncode>/.test(text) &&
    !refusedAction(text) &&
    !/^\s*The last command <command>/.test(text)
  )
    return undefined;
  return observation(text);
}
