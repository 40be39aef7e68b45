/**
 * Small synchronous file-system probes. Folder units make many tiny checks
 * (does `agent/` exist, first bytes of `result.json`); sync calls without
 * exceptions cost a few microseconds where promise-based ones cost tens.
 */
import {
  closeSync,
  type Dirent,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  type Stats,
  statSync,
} from "node:fs";
import { join } from "node:path";
import { ownCopy } from "./text.js";

/** The stat of a path, or undefined for one that is missing or unreadable (a link loop, no access). */
export function statOf(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

export function isFile(path: string): boolean {
  return statOf(path)?.isFile() ?? false;
}

export function isDir(path: string): boolean {
  return statOf(path)?.isDirectory() ?? false;
}

function entries(dir: string): Dirent[] {
  return listing(dir) ?? [];
}

/** A folder's entries, or undefined when it cannot be read. */
function listing(dir: string): Dirent[] | undefined {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
}

/**
 * Sorted subdirectory names (none when unreadable). A folder's listing is kept a few seconds
 * while its modification time is the same (an entry added, removed or renamed changes it): the
 * lookups that pair files across a run's folders ask for the same few folders once per file.
 * Not kept: a listing that failed, one of a folder holding a link (its target may change
 * without the folder), or one of a folder changed within the last two seconds (a file system
 * with coarse times may not move the time for a change in the same second).
 */
export function subdirs(dir: string): string[] {
  const mtime = statOf(dir)?.mtimeMs;
  const now = Date.now();
  const kept = SUBDIRS.get(dir);
  if (kept && mtime !== undefined && kept.mtime === mtime && now - kept.at < KEEP_MS)
    return [...kept.names];
  const list = listing(dir);
  if (!list) {
    SUBDIRS.delete(dir);
    return [];
  }
  const names = list
    .filter(
      (e) =>
        !e.name.startsWith(".") &&
        (e.isDirectory() || (e.isSymbolicLink() && isDir(join(dir, e.name)))),
    )
    .map((e) => e.name)
    .sort();
  if (mtime !== undefined && now - mtime > 2000 && !list.some((e) => e.isSymbolicLink())) {
    if (SUBDIRS.size >= 64) SUBDIRS.delete(SUBDIRS.keys().next().value!);
    SUBDIRS.set(dir, { at: now, mtime, names });
  }
  return [...names];
}
const KEEP_MS = 10_000;
const SUBDIRS = new Map<string, { at: number; mtime: number; names: readonly string[] }>();

/** Files below `dir` (depth-limited) whose relative path matches `test`, largest first. */
export function findFiles(dir: string, test: (rel: string) => boolean, maxDepth = 6): string[] {
  const found: { path: string; size: number }[] = [];
  const walk = (d: string, rel: string, depth: number): void => {
    for (const e of entries(d)) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      const p = join(d, e.name);
      if (e.isDirectory()) {
        if (depth < maxDepth) walk(p, r, depth + 1);
      } else if (e.isFile() && test(r)) {
        found.push({ path: p, size: statSync(p, { throwIfNoEntry: false })?.size ?? 0 });
      }
    }
  };
  walk(dir, "", 0);
  return found.sort((a, b) => b.size - a.size || (a.path < b.path ? -1 : 1)).map((f) => f.path);
}

/** Read up to `bytes` bytes at `position` of a file, or undefined when it cannot be read. */
function readAt(path: string, bytes: number, fromEnd: boolean): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const size = fromEnd ? statSync(path).size : bytes;
    const want = Math.min(size, bytes);
    const buf = Buffer.allocUnsafe(want);
    const n = readSync(fd, buf, 0, want, fromEnd ? size - want : 0);
    return buf.subarray(0, n);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Last `chars` characters of a text file (reads only the tail), or undefined. */
export function readTail(path: string, chars: number): string | undefined {
  if (!isFile(path)) return undefined;
  const text = readAt(path, chars * 4, true)?.toString("utf8");
  // copy the cut tail so it does not pin the larger decoded buffer text
  return text !== undefined && text.length > chars
    ? ownCopy(text.slice(text.length - chars))
    : text;
}

/**
 * Small text file contents, or undefined (also for a path no file can have: a name read from
 * a trace may carry a NUL, which the file system calls refuse by throwing).
 */
export function readSmall(path: string, max = 1 << 20): string | undefined {
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st?.isFile() || st.size > max) return undefined;
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** First ≤4 KiB of a file as text (for quick shape checks), or "". */
export function peek(path: string, bytes = 4096): string {
  if (!isFile(path)) return "";
  return readAt(path, bytes, false)?.toString("utf8") ?? "";
}

/** Longest prefix `scanFor` reads before it gives up. */
export const SCAN_CAP = 8 << 20;

/**
 * Whether `re` matches in the file's first `cap` bytes, read in 64 KiB chunks and stopped at
 * the first match: a key a shape check looks for may sit behind a long value (a task text
 * of 10 kB before `"is_resolved":`), so a fixed head is not enough. Chunks overlap by
 * `overlap` characters, so a match of up to that length across a boundary is found.
 */
export function scanFor(path: string, re: RegExp, cap = SCAN_CAP, overlap = 256): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const buf = Buffer.allocUnsafe(64 * 1024);
    let carry = "";
    for (let pos = 0; pos < cap; ) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, cap - pos), pos);
      if (n <= 0) return false;
      pos += n;
      const text = carry + buf.toString("utf8", 0, n);
      if (re.test(text)) return true;
      carry = text.slice(-overlap);
    }
    return false;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
