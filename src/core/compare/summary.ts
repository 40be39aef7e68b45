import type { Event } from "../model/attempt.js";

/** Codex exec output starts with a header (`Chunk ID: …`, `Wall time: …`, `Output:`). */
const CODEX_HEADER =
  /^(?:Chunk ID: [^\n]*\n)?(?:Wall time: [^\n]*\n)?(?:Process exited with code -?\d+\n)?(?:Original token count: [^\n]*\n)?Output:\n?/;

/** A tool result's own output: Codex's exec header dropped (its exit code is read by exitCodeFromOutput). */
export function resultBody(output: string): string {
  return output.replace(CODEX_HEADER, "");
}

/** A value on one line, cut to `max` (only its head is flattened: it can be megabytes). */
const short = (v: unknown, max: number): string => {
  const s = (typeof v === "string" ? v : JSON.stringify(v)) ?? "";
  const head = s.slice(0, 8 * max);
  const flat = head.replace(/\s+/g, " ").trim();
  return flat.length > max || head.length < s.length ? `${flat.slice(0, max - 1)}…` : flat;
};

/** A tool call's arguments when they are a JSON object, else undefined. */
function argsOf(input: string): Record<string, unknown> | undefined {
  let args: unknown;
  try {
    args = input.trim().startsWith("{") ? JSON.parse(input) : undefined;
  } catch {
    args = undefined;
  }
  return args && typeof args === "object" && !Array.isArray(args)
    ? (args as Record<string, unknown>)
    : undefined;
}

/**
 * A non-shell tool call's arguments to read in full: one `key: value` line each, a multi-line
 * string as its own lines under `key:` (a written file reads as the file, not as JSON escapes),
 * other values as indented JSON. Input that is not a JSON object is returned as it is.
 */
export function toolInputText(input: string): string {
  const args = argsOf(input);
  if (!args) return input;
  return Object.entries(args)
    .map(([k, v]) => {
      if (typeof v === "string") return v.includes("\n") ? `${k}:\n${v}` : `${k}: ${v}`;
      return `${k}: ${JSON.stringify(v, null, 2)}`;
    })
    .join("\n");
}

/**
 * Summaries by event: a timeline row is drawn on every frame, and parsing a call's input
 * (a Write of a 50 MB file) each time stalled the screen.
 */
const summaries = new WeakMap<Event, string>();

/**
 * One line for a non-shell tool call: the tool and its arguments summarised (`Write
 * file_path=/app/x.py content=(12 lines)`), not its raw JSON.
 */
export function toolSummary(e: Event): string {
  let s = summaries.get(e);
  if (s === undefined) {
    s = summarise(e);
    summaries.set(e, s);
  }
  return s;
}

function summarise(e: Event): string {
  const tool = e.tool ?? "tool";
  const input = e.input ?? "";
  const args = argsOf(input);
  if (!args) return input ? `${tool} ${short(input, 160)}` : tool;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(args)) {
    if (typeof v === "string" && (v.includes("\n") || v.length > 80)) {
      let lines = 1;
      for (let i = v.indexOf("\n"); i !== -1; i = v.indexOf("\n", i + 1)) lines++;
      parts.push(`${k}=(${lines > 1 ? `${lines} lines` : `${v.length} chars`})`);
    } else parts.push(`${k}=${short(v, 60)}`);
  }
  return `${tool} ${parts.join(" ")}`.trim();
}
