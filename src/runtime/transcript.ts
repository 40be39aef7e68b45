import { closeSync, readSync } from "node:fs";
import { openRegular } from "../core/regular-file.js";

/** Reads at most this much of a transcript looking for the first user prompt. */
export const TRANSCRIPT_SCAN_CAP = 4 * 1024 * 1024;
const CHUNK = 64 * 1024;

/**
 * The first user prompt of a Claude Code transcript or a Codex rollout, read line by line
 * from the start of the file (bounded: TRANSCRIPT_SCAN_CAP bytes). Undefined when the file
 * is missing, unreadable, or holds no prompt in that window. Never throws.
 */
export function firstPromptOf(path: string, scanCap = TRANSCRIPT_SCAN_CAP): string | undefined {
  let fd: number;
  try {
    fd = openRegular(path).fd; // a FIFO or device is refused, never waited on
  } catch {
    return undefined;
  }
  try {
    const buf = Buffer.alloc(CHUNK);
    let pending = "";
    let read = 0;
    while (read < scanCap) {
      const n = readSync(fd, buf, 0, Math.min(CHUNK, scanCap - read), read);
      if (n <= 0) break;
      read += n;
      pending += buf.toString("utf8", 0, n);
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        const found = promptOfLine(line);
        if (found !== undefined) return found;
      }
    }
    return read < scanCap ? promptOfLine(pending) : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The user prompt a single transcript line carries, if any. */
export function promptOfLine(line: string): string | undefined {
  if (!line.includes('"user')) return undefined;
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isObj(row)) return undefined;
  return claudePrompt(row) ?? codexPrompt(row);
}

/** Claude Code: `{"type":"user","message":{"role":"user","content":"…"}}`, not meta rows. */
function claudePrompt(row: Record<string, unknown>): string | undefined {
  if (row.type !== "user" || row.isMeta === true || !isObj(row.message)) return undefined;
  const content = row.message.content;
  if (typeof content === "string") return nonEmpty(content);
  if (!Array.isArray(content)) return undefined;
  const texts = content.filter((c) => isObj(c) && c.type === "text" && typeof c.text === "string");
  return nonEmpty(texts.map((c) => (c as { text: string }).text).join("\n"));
}

/** Codex: a user `response_item` message whose items are user text (not environment context). */
function codexPrompt(row: Record<string, unknown>): string | undefined {
  const p = row.payload;
  if (!isObj(p)) return undefined;
  if (row.type === "event_msg" && p.type === "user_message" && typeof p.message === "string")
    return nonEmpty(p.message);
  if (row.type !== "response_item" || p.type !== "message" || p.role !== "user") return undefined;
  if (!Array.isArray(p.content)) return undefined;
  const meta = p.internal_chat_message_metadata_passthrough;
  const kinds =
    isObj(meta) && Array.isArray(meta.content_item_kinds) ? meta.content_item_kinds : [];
  const texts: string[] = [];
  p.content.forEach((c, i) => {
    if (!isObj(c) || c.type !== "input_text" || typeof c.text !== "string") return;
    const kind = kinds[i];
    if (kind !== undefined ? kind === "user.text" : !c.text.trimStart().startsWith("<"))
      texts.push(c.text);
  });
  return nonEmpty(texts.join("\n"));
}

function nonEmpty(s: string): string | undefined {
  return s.trim() ? s : undefined;
}

function isObj(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}
