import type { Event } from "../model/attempt.js";

/** Codex exec output starts with a header (`Chunk ID: …`, `Wall time: …`, `Output:`). */
const CODEX_HEADER =
  /^(?:Chunk ID: [^\n]*\n)?(?:Wall time: [^\n]*\n)?(?:Process exited with code -?\d+\n)?(?:Original token count: [^\n]*\n)?Output:\n?/;

/** A tool result's own output: Codex's exec header dropped (its exit code is read by exitCodeFromOutput). */
export function resultBody(output: string): string {
  return output.replace(CODEX_HEADER, "");
}

const short = (v: unknown, max: number): string => {
  const s = typeof v === "string" ? v : JSON.stringify(v);
  const flat = (s ?? "").replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/**
 * One line for a non-shell tool call: the tool and its arguments summarised (`Write
 * file_path=/app/x.py content=(12 lines)`), not its raw JSON.
 */
export function toolSummary(e: Event): string {
  const tool = e.tool ?? "tool";
  const input = e.input ?? "";
  let args: unknown;
  try {
    args = input.trim().startsWith("{") ? JSON.parse(input) : undefined;
  } catch {
    args = undefined;
  }
  if (!args || typeof args !== "object" || Array.isArray(args))
    return input ? `${tool} ${short(input, 160)}` : tool;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(args as Record<string, unknown>)) {
    if (typeof v === "string" && (v.includes("\n") || v.length > 80)) {
      const lines = v.split("\n").length;
      parts.push(`${k}=(${lines > 1 ? `${lines} lines` : `${v.length} chars`})`);
    } else parts.push(`${k}=${short(v, 60)}`);
  }
  return `${tool} ${parts.join(" ")}`.trim();
}
