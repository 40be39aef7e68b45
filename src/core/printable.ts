/**
 * Text from traces made safe to show in a terminal. Traces are untrusted: a tool output can
 * hold ANSI / OSC escape sequences (colours, cursor moves, window titles, clipboard writes,
 * hyperlinks) or bidi overrides that make the shown text differ from the stored text.
 * Every control character except tab and newline becomes its visible Unicode "control
 * picture" (ESC → ␛), C1 controls and bidi controls (overrides, isolates and the ALM / LRM / RLM marks) become a
 * visible code, so nothing a
 * trace contains is interpreted by the terminal and the reader still sees it was there.
 */

const CONTROLS =
  "[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]";
const ANY = new RegExp(CONTROLS);
const ALL = new RegExp(CONTROLS, "g");

function visible(c: string): string {
  const code = c.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code); // ␀ … ␟
  if (code === 0x7f) return "␡";
  return `<U+${code.toString(16).toUpperCase().padStart(4, "0")}>`;
}

/** `text` with every terminal control sequence neutralised (tab and newline kept). */
export function printable(text: string): string {
  return ANY.test(text) ? text.replace(ALL, visible) : text;
}
