import type { Event } from "../model/attempt.js";

/**
 * Task values: strings a policy captures from the task text once (paths, file names, numbers
 * the task names, in any language) and the declarative tests over them — "the event mentions
 * one of them", "one of them was never marked". Zod-free: the hook loads this.
 *
 * Mention rule (one for marks and `mentions` conditions). A value is looked up in a tool
 * call's `writes`, `command` and `input` only (never in outputs: a listing that prints a path
 * is not a use of it). With `match: "path"` (default) the value must appear as a path:
 *  - an exact write path, or a relative value at the end of a written absolute path under a
 *    shallow folder (at most SHALLOW folders: `/workspace/answer.txt` for `answer.txt`);
 *  - in text, bounded on both sides by non-path characters, or (relative value) preceded by
 *    `/` when the folder before it is shallow. `docs/` inside `/opt/tool/lib/docs/` is
 *    another place with the same name, not the task's `docs/`.
 * With `match: "name"` only the last path segment has to match (the same file name anywhere).
 * With `match: "written"` the value must be what the call writes: one of its `writes`, or a
 * shell write target (after `>` / `>>`, `tee`, the destination of `cp` / `mv`), never a file
 * the command only reads (`sqlite3 in.db .dump > out.sql` writes out.sql, not in.db).
 */

/** Most values kept per list, and the longest value (a capture past it is dropped). */
export const VALUES_MAX = 16;
export const VALUE_LEN_MAX = 240;
/** Folders an absolute path may have before a relative value (`/workspace/`, `/home/u/`). */
export const SHALLOW = 2;

export type MatchMode = "path" | "name" | "written";

/**
 * The values a global scan of the (capped) task text captures: group 1, else the match.
 * The scan resumes right after the captured value, so a pattern that consumes the character
 * bounding a value (candidate patterns have no lookaround: regex.ts) still sees the next one
 * (`a.txt b.txt`).
 */
export function captureValues(re: RegExp, text: string): string[] {
  const g = new RegExp(re.source, re.flags.includes("g") ? re.flags : `${re.flags}g`);
  const out: string[] = [];
  for (let m = g.exec(text); m !== null; m = g.exec(text)) {
    const start = m[1] === undefined ? -1 : m[0].indexOf(m[1]);
    const end = start < 0 ? m.index + m[0].length : m.index + start + (m[1] as string).length;
    g.lastIndex = Math.max(end, m.index + 1);
    const raw = (m[1] ?? m[0]).trim().replace(/^\.\//, "");
    if (raw === "" || raw.length > VALUE_LEN_MAX || out.includes(raw)) continue;
    out.push(raw);
    if (out.length >= VALUES_MAX) break;
  }
  return out;
}

const PATH_CHAR = /[\p{L}\p{N}_.\-/~]/u;
const lastSegment = (p: string): string => {
  const t = p.endsWith("/") ? p.slice(0, -1) : p;
  return t.slice(t.lastIndexOf("/") + 1);
};

/** Folders in the absolute path before position `end` (`/a/b/` → 2). */
function depthBefore(text: string, end: number): number {
  let i = end - 1;
  while (i >= 0 && PATH_CHAR.test(text[i]!)) i--;
  const prefix = text.slice(i + 1, end);
  if (!prefix.startsWith("/") && !prefix.startsWith("~/")) return Number.POSITIVE_INFINITY;
  return prefix.split("/").filter(Boolean).length - (prefix.startsWith("~/") ? 1 : 0);
}

function boundedAfter(text: string, end: number, value: string): boolean {
  const c = text[end];
  if (c === undefined) return true;
  if (value.endsWith("/")) return true;
  // `answer.txt.` at the end of a sentence still ends the path; `answer.txt.bak` does not
  if (c === ".") return !PATH_CHAR.test(text[end + 1] ?? " ") || text[end + 1] === "/";
  return !PATH_CHAR.test(c);
}

/** Whether `text` contains `value` as a path (see the module comment). */
export function mentionsIn(text: string, value: string, mode: MatchMode): boolean {
  const v = mode === "name" ? lastSegment(value) : value;
  if (v === "") return false;
  const relative = !v.startsWith("/") && !v.startsWith("~");
  let from = 0;
  for (;;) {
    const at = text.indexOf(v, from);
    if (at < 0) return false;
    from = at + 1;
    if (!boundedAfter(text, at + v.length, v)) continue;
    const before = at === 0 ? "" : text[at - 1]!;
    if (before === "" || !PATH_CHAR.test(before)) return true;
    if (before !== "/") continue;
    if (mode === "name") return true;
    if (relative && depthBefore(text, at) <= SHALLOW) return true;
  }
}

/** Whether a written path is `value` (exact, or a relative value under a shallow folder). */
export function writeIs(written: string, value: string, mode: MatchMode): boolean {
  const w = written.replace(/^\.\//, "").replace(/\/$/, "");
  const v = value.replace(/\/$/, "");
  if (mode === "name") return lastSegment(w) === lastSegment(v);
  if (w === v) return true;
  if (!v.startsWith("/") && w.endsWith(`/${v}`))
    return depthBefore(w, w.length - v.length) <= SHALLOW;
  if (!w.startsWith("/") && v.endsWith(`/${w}`)) return true;
  // a folder the task names (`out/`) is used when a file is written inside it
  if (value.endsWith("/")) return mentionsIn(w, value, mode);
  return false;
}

const REDIRECT = /(?:^|[^>&0-9])>{1,2}\s*(['"]?)([^\s'";&|()<>]+)\1/g;
const TEE = /\btee\s+(?:-a\s+)?(['"]?)([^\s'";&|()<>]+)\1/g;
const COPY = /\b(?:cp|mv)\s+(?:-[A-Za-z]+\s+)?[^\s;&|]+\s+(['"]?)([^\s'";&|()<>]+)\1/g;

/** Files a shell command writes: redirect and tee targets, cp / mv destinations. */
export function shellTargets(command: string): string[] {
  const out: string[] = [];
  for (const re of [REDIRECT, TEE, COPY])
    for (const m of command.matchAll(re)) if (m[2] && !m[2].startsWith("/dev/")) out.push(m[2]);
  return out;
}

/** Whether a tool call uses `value` (writes, command, input); other events mention nothing. */
export function eventMentions(ev: Event, value: string, mode: MatchMode): boolean {
  if (ev.kind !== "tool_call") return false;
  if (mode === "written") {
    if (ev.writes?.some((w) => writeIs(w, value, "path"))) return true;
    return (
      ev.command !== undefined && shellTargets(ev.command).some((w) => writeIs(w, value, "path"))
    );
  }
  if (ev.writes?.some((w) => writeIs(w, value, mode))) return true;
  if (ev.command !== undefined && mentionsIn(ev.command, value, mode)) return true;
  return ev.input !== undefined && mentionsIn(ev.input, value, mode);
}

/** FNV-1a over a normalized text (whitespace collapsed, digit runs as `0`): a streak key. */
export function streakKey(text: string): string {
  const norm = text.replace(/\d+/g, "0").replace(/\s+/g, " ").trim().slice(0, 2000);
  let h = 0x811c9dc5;
  for (let i = 0; i < norm.length; i++) {
    h ^= norm.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

const UNIT_SECONDS: [RegExp, number][] = [
  [/^(?:s|secs?|seconds?|秒)$/i, 1],
  [/^(?:m|mins?|minutes?|分钟|分)$/i, 60],
  [/^(?:h|hrs?|hours?|小时|時間)$/i, 3600],
];
const DURATION = /(\d+(?:\.\d+)?)\s?([A-Za-z]+|秒|分钟|分|小时|時間)/;

/** Seconds in a stated duration ("30 minutes", "2h", "90 s", "10分钟"), or undefined. */
export function durationSeconds(text: string): number | undefined {
  const m = DURATION.exec(text);
  if (!m) return undefined;
  const unit = UNIT_SECONDS.find(([re]) => re.test(m[2] ?? ""));
  const n = Number(m[1]);
  return unit && Number.isFinite(n) && n > 0 ? n * unit[1] : undefined;
}
