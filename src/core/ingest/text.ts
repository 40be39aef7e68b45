import { createHash } from "node:crypto";

/** The line `capText` puts where it cut a text: any reader can tell a capped output by it. */
export const CUT_MARK = /\n\[… \d+ characters cut …\]\n/;

/**
 * Cap a text at `cap` characters, keeping its head and its tail with one line between that
 * says how many were cut; `outputBytes` is the full UTF-8 length.
 */
export function capText(text: string, cap: number): { output: string; outputBytes: number } {
  const outputBytes = Buffer.byteLength(text, "utf8");
  if (text.length <= cap) return { output: text, outputBytes };
  // a command's verdict is mostly at its end (a test runner's summary, the error a build died
  // on): a quarter of the cap keeps the tail, the rest the head and one line between that
  // says how much went (a cap too small for both keeps the head)
  const tail = cap >= 400 ? Math.floor(cap / 4) : 0;
  if (tail === 0) return { output: ownCopy(text.slice(0, cap)), outputBytes };
  const mark = (head: number) => `\n[… ${text.length - head - tail} characters cut …]\n`;
  const head = cap - tail - mark(0).length;
  return {
    output: ownCopy(`${text.slice(0, head)}${mark(head)}${text.slice(text.length - tail)}`),
    outputBytes,
  };
}

/**
 * A prefix of a long string that does not keep the long string alive: V8
 * represents `slice` as a view on its parent, which would pin every full
 * tool output in memory. Used only when a text is actually cut.
 */
export function ownCopy(text: string): string {
  return Buffer.from(text, "utf8").toString("utf8");
}

/** `text` cut to `cap` characters without pinning the original. */
export function capString(text: string, cap: number): string {
  return text.length > cap ? ownCopy(text.slice(0, cap)) : text;
}

/** Short stable hash (hex) of the given parts. */
export function shortHash(...parts: string[]): string {
  const h = createHash("sha256");
  for (const p of parts) h.update(p).update("\0");
  return h.digest("hex").slice(0, 12);
}

/**
 * A stable attempt id: a readable slug of the identity plus a hash of
 * format family + identity, so re-importing the same source gives the same id.
 */
export function attemptId(family: string, identity: string, label = identity): string {
  const slug = label
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[-.]+|[-.]+$/g, "")
    .slice(0, 40);
  const hash = shortHash(family, identity);
  return slug ? `${slug}-${hash.slice(0, 8)}` : `${family}-${hash}`;
}

/** Task id for a bare session: a hash of the task text, so equal prompts group together. */
export function taskIdFromText(text: string): string {
  return `task-${shortHash(text.trim()).slice(0, 10)}`;
}

/** The last segment of a POSIX or Windows path (`/home/me/webapp/` → `webapp`). */
function lastSegment(path: string): string {
  return (
    path
      .split(/[\\/]+/)
      .filter(Boolean)
      .at(-1) ?? ""
  );
}

/**
 * Task id for a session without a benchmark task (a Claude Code or Codex log from daily
 * work): the name of the folder it ran in, then a readable slug of the task text and its
 * hash (`webapp/fix-the-login-test-3fa2c1d0`), so equal prompts in one folder still group
 * together and the id says where and what. Without a folder: `taskIdFromText`.
 */
export function sessionTaskId(text: string, folder: string | undefined): string {
  const where = folder ? lastSegment(folder).replace(/[^A-Za-z0-9._-]+/g, "-") : "";
  if (!where || /^[-.]*$/.test(where)) return taskIdFromText(text);
  const words = text
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, 32)
    .replace(/^-+|-+$/g, "");
  const hash = shortHash(text.trim()).slice(0, 8);
  return `${where}/${words ? `${words}-` : ""}${hash}`;
}

/** Text of a message that is a string or a list of parts ({type:"text", text}). */
export function partsText(message: unknown): string {
  if (typeof message === "string") return message;
  if (!Array.isArray(message)) return "";
  const out: string[] = [];
  for (const part of message) {
    if (typeof part === "string") out.push(part);
    else if (part && typeof part === "object") {
      const p = part as Record<string, unknown>;
      if (typeof p.text === "string") out.push(p.text);
      else if (typeof p.content === "string") out.push(p.content);
    }
  }
  return out.join("\n");
}

/** JSON text of a structured tool input (strings pass through). */
export function inputText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

/** Seconds between two ISO timestamps, when both parse. */
export function secondsBetween(start?: string | null, end?: string | null): number | undefined {
  if (!start || !end) return undefined;
  const a = Date.parse(start);
  const b = Date.parse(end);
  if (Number.isNaN(a) || Number.isNaN(b) || b < a) return undefined;
  return (b - a) / 1000;
}

/**
 * A user message the agent's harness writes itself, not the person's prompt: the Codex CLI's
 * environment context, its copy of AGENTS.md and other instructions, the plugins it recommends,
 * a notice of an aborted turn. A trajectory's task is the first user message that is not one.
 */
export function isHarnessText(text: string): boolean {
  return HARNESS_TEXT.test(text);
}
const HARNESS_TEXT =
  /^\s*(?:<environment_context|<user_instructions|<permissions|<skills_instructions|<turn_aborted|<collaboration_mode|<recommended_plugins|<apps_instructions|<multi_agent_mode|# AGENTS\.md)/;
