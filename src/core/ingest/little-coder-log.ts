/**
 * little-coder's run log under Harbor (`agent/little_coder.log`, written by its Harbor adapter):
 *
 *     === assistant text ===
 *     <every visible assistant text of the run, joined>
 *
 *     >> ShellSession({'command': 'ls -R /app'})
 *     << <output, cut by the adapter>
 *     [exit=0 cwd=/app timed_out=false backend=harbor-env]
 *     >> …
 *     === pi notifications (3) ===
 *     [warning] quality-monitor: repeated_tool_call (suppressed after 2 in a row)
 *     [warning] turn-cap: reached max_turns=40, aborting
 *
 * A call is `>> Tool(<Python dict>)` on one line (the arguments as `repr()` prints them, read
 * without evaluating anything); its result runs to the next call or section, ending in the
 * adapter's `[exit=N cwd=… timed_out=…]` trailer. The assistant text has no place among the
 * calls (it is one block for the whole run): it is the run's last message. The scaffold's own
 * notifications (its nudges, its turn cap) follow as a system message.
 */
import type { PrintedItem } from "./agent-printed.js";
import { parsePyLiteral } from "./py-literal.js";

const TEXT_HEADER = "=== assistant text ===";
const NOTES_HEADER = /^=== pi notifications \(\d+\) ===$/;
const CALL = /^>> ([A-Za-z_][\w.-]{0,80})\(/;
const TRAILER = /\[exit=(-?\d+) cwd=\S* timed_out=(true|false)(?: [^\]\n]*)?\]\s*$/;

/** Whether the text is such a log (its first line is the assistant-text header). */
export function isLittleCoderLog(text: string): boolean {
  return text.trimStart().startsWith(TEXT_HEADER) && /\n>> [A-Za-z_]/.test(text);
}

function callOf(line: string): PrintedItem | undefined {
  const m = CALL.exec(line);
  if (!m) return undefined;
  const tool = m[1] ?? "";
  let args: unknown;
  try {
    const { value, end } = parsePyLiteral(line, m[0].length);
    if (line.slice(end).trim() !== ")") return undefined;
    args = value;
  } catch {
    return undefined;
  }
  const command =
    args && typeof args === "object" && typeof (args as { command?: unknown }).command === "string"
      ? (args as { command: string }).command
      : undefined;
  return { type: "call", tool, args, ...(command !== undefined ? { command } : {}) };
}

function resultOf(lines: string[]): PrintedItem {
  let text = lines.join("\n").replace(/^<< ?/, "");
  const t = TRAILER.exec(text);
  if (!t) return { type: "result", output: text };
  text = text.slice(0, t.index).replace(/\n$/, "");
  const exitCode = Number(t[1]);
  const timedOut = t[2] === "true";
  return {
    type: "result",
    output: timedOut ? `${text}${text ? "\n" : ""}[timed out]` : text,
    exitCode,
    ...(exitCode !== 0 || timedOut ? { isError: true } : {}),
  };
}

/** Calls, results and messages of a little-coder log; none when the text is not one. */
export function littleCoderItems(text: string): PrintedItem[] {
  if (!isLittleCoderLog(text)) return [];
  const lines = text.split("\n");
  const out: PrintedItem[] = [];
  const said: string[] = [];
  const notes: string[] = [];
  let section: "text" | "calls" | "notes" = "text";
  let result: string[] | undefined;
  const flush = () => {
    if (result) out.push(resultOf(result));
    result = undefined;
  };
  for (const line of lines) {
    if (line === TEXT_HEADER) continue;
    if (NOTES_HEADER.test(line)) {
      flush();
      section = "notes";
      continue;
    }
    if (section === "notes") {
      if (line.trim()) notes.push(line.trim());
      continue;
    }
    const call = line.startsWith(">> ") ? callOf(line) : undefined;
    if (call) {
      flush();
      section = "calls";
      out.push(call);
      continue;
    }
    if (section === "text") said.push(line);
    else if (result) result.push(line);
    else if (line.startsWith("<<")) result = [line];
  }
  flush();
  const message = said.join("\n").trim();
  if (message) out.push({ type: "message", text: message });
  if (notes.length > 0) out.push({ type: "message", role: "system", text: notes.join("\n") });
  return out.some((i) => i.type === "call") ? out : [];
}
