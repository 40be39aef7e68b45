import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";

let memo: Promise<string> | undefined;

/**
 * A hash of the code that shapes parsed attempts: the importers (`core/ingest/`) and
 * the model (`core/model/`). It is part of every parse-cache key, so entries written
 * by another version of fire are never served. Read once per process (~60 small files),
 * synchronously: one awaited read per file left the process idle ~17 ms in every command
 * that checks a cache key (a cluster decision is ~90 ms), reading them at once takes ~2 ms.
 * By content, not mtime: a rebuild of the same code (every `npm install`) keeps the caches.
 */
export function parserCodeStamp(): Promise<string> {
  memo ??= Promise.resolve().then(() => {
    const h = createHash("sha256");
    for (const folder of ["../ingest/", "../model/"]) {
      const dir = fileURLToPath(new URL(folder, import.meta.url));
      let names: string[] = [];
      try {
        names = readdirSync(dir)
          .filter((n) => [".js", ".ts"].includes(extname(n)))
          .sort();
      } catch {
        h.update(`${folder}:missing\n`);
      }
      for (const name of names) {
        h.update(`${folder}${name}\n`);
        h.update(readFileSync(`${dir}${name}`));
      }
    }
    return h.digest("hex").slice(0, 16);
  });
  return memo;
}

const stamps = new Map<string, string>();

/**
 * Stamp of the code in a folder (every module below it, by path, size and mtime), once per
 * process: an entry written by another build of fire is never served.
 */
export function codeStamp(root: string): string {
  const memo = stamps.get(root);
  if (memo) return memo;
  const h = createHash("sha256");
  const walk = (dir: string, rel: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      // plain concatenation: path.join normalizes every call, half the walk's time
      const p = `${dir}${sep}${e.name}`;
      if (e.isDirectory()) walk(p, `${rel}${e.name}/`);
      else if (/\.(js|ts|cjs|cts)$/.test(e.name)) {
        const st = statSync(p);
        h.update(`${rel}${e.name}:${st.size}:${st.mtimeMs}\n`);
      }
    }
  };
  walk(root.endsWith(sep) ? root.slice(0, -1) : root, "");
  const stamp = h.digest("hex");
  stamps.set(root, stamp);
  return stamp;
}

/** Stamp of the code mining runs (every module under core/). */
export function coreCodeStamp(): string {
  return codeStamp(join(dirname(fileURLToPath(import.meta.url)), ".."));
}
