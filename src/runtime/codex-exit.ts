import { closeSync, readSync } from "node:fs";
import { openRegular } from "../core/regular-file.js";

/** How much of a rollout's end is searched for a call's record. */
export const ROLLOUT_TAIL = 256 * 1024;

/**
 * The exit code Codex recorded for a shell call in its rollout, or undefined. Codex's
 * PostToolUse hook gets only the output string, but by then the rollout already holds the
 * call's `item_completed` CommandExecution record with `exit_code` (written before the hook
 * runs; the output with "Process exited with code N" follows after it). Only the rollout's
 * last ROLLOUT_TAIL bytes are read; a missing, unreadable or non-regular file gives undefined.
 */
export function rolloutExitCode(path: string, callId: string): number | undefined {
  let fd: number;
  let size: number;
  try {
    ({ fd, size } = openRegular(path)); // a FIFO or device is refused, never waited on
  } catch {
    return undefined;
  }
  try {
    const len = Math.min(size, ROLLOUT_TAIL);
    const buf = Buffer.allocUnsafe(len);
    let got = 0;
    while (got < len) {
      const n = readSync(fd, buf, got, len - got, size - len + got);
      if (n <= 0) break;
      got += n;
    }
    const text = buf.toString("utf8", 0, got);
    const needle = JSON.stringify(callId);
    // newest record first: a call id is unique, but a retried call would be recorded again
    for (let end = text.length; end > 0; ) {
      const start = text.lastIndexOf("\n", end - 1) + 1;
      const line = text.slice(start, end);
      end = start - 1;
      if (!line.includes(needle) || !line.includes('"exit_code"')) continue;
      const code = exitOfLine(line, callId);
      if (code !== undefined) return code;
    }
    return undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function exitOfLine(line: string, callId: string): number | undefined {
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch {
    return undefined;
  }
  const p = (row as { payload?: Record<string, unknown> } | null)?.payload;
  if (!p || typeof p !== "object") return undefined;
  // 0.171: event_msg item_completed {item: {type: CommandExecution, id, exit_code}};
  // older CLIs: event_msg exec_command_end {call_id, exit_code}
  const item = (p.type === "item_completed" ? p.item : p) as Record<string, unknown> | undefined;
  if (!item || (item.id !== callId && item.call_id !== callId)) return undefined;
  const code = item.exit_code;
  return typeof code === "number" && Number.isInteger(code) ? code : undefined;
}
