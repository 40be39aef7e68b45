import { createHash } from "node:crypto";
import type { Dirent, Stats } from "node:fs";
import { lstatSync, readdirSync } from "node:fs";
import { sep } from "node:path";

/** Stamp of one file: size and modification time. */
export function fileStamp(st: Stats): string {
  return `${st.size}-${Math.trunc(st.mtimeMs)}`;
}

/**
 * Stamp of a folder unit: a hash over every file below it (relative path,
 * size, mtime), so any change to a file the unit reads changes the stamp.
 * Synchronous on purpose: thousands of tiny lstat calls are far cheaper so.
 */
export async function dirStamp(root: string, maxDepth = 8): Promise<string> {
  const h = createHash("sha256");
  let files = 0;
  const walk = (dir: string, rel: string, depth: number): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      h.update(`${rel}:unreadable\n`);
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const name = e.name;
      const p = `${dir}${sep}${name}`; // path.join normalizes on every call
      const r = rel ? `${rel}/${name}` : name;
      // the entry type comes with the listing: only files (and links) need an lstat
      if (e.isDirectory()) {
        if (depth < maxDepth) walk(p, r, depth + 1);
        continue;
      }
      const st = lstatSync(p, { throwIfNoEntry: false });
      if (!st) h.update(`${r}:gone\n`);
      else if (st.isDirectory()) {
        if (depth < maxDepth) walk(p, r, depth + 1);
      } else {
        files++;
        h.update(`${r}:${fileStamp(st)}\n`);
      }
    }
  };
  walk(root.length > 1 && root.endsWith(sep) ? root.slice(0, -1) : root, "", 0);
  return `${files}-${h.digest("hex").slice(0, 16)}`;
}

/**
 * Stamp of files read from outside a unit: each path with its size and mtime (`-` when it
 * is not there), hashed; `none` when there are none.
 */
export function filesStamp(paths: readonly string[]): string {
  if (paths.length === 0) return "none";
  const h = createHash("sha256");
  for (const p of paths) {
    const st = lstatSync(p, { throwIfNoEntry: false });
    h.update(`${p}:${st ? fileStamp(st) : "-"}\n`);
  }
  return h.digest("hex").slice(0, 16);
}
