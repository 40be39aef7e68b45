import { open, readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";

export async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

export async function isDir(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** Sorted subdirectory names (none when unreadable). */
export async function subdirs(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries
      .filter((e) => e.isDirectory() && !e.name.startsWith("."))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/** Files below `dir` (depth-limited) whose relative path matches `test`, largest first. */
export async function findFiles(
  dir: string,
  test: (rel: string) => boolean,
  maxDepth = 6,
): Promise<string[]> {
  const found: { path: string; size: number }[] = [];
  async function walk(d: string, rel: string, depth: number): Promise<void> {
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      const p = join(d, e.name);
      if (e.isDirectory()) {
        if (depth < maxDepth) await walk(p, r, depth + 1);
      } else if (e.isFile() && test(r)) {
        found.push({ path: p, size: (await stat(p)).size });
      }
    }
  }
  await walk(dir, "", 0);
  return found.sort((a, b) => b.size - a.size || (a.path < b.path ? -1 : 1)).map((f) => f.path);
}

/** Last `chars` characters of a text file (reads only the tail), or undefined. */
export async function readTail(path: string, chars: number): Promise<string | undefined> {
  try {
    const fh = await open(path, "r");
    try {
      const { size } = await fh.stat();
      const want = Math.min(size, chars * 4);
      const buf = Buffer.alloc(want);
      await fh.read(buf, 0, want, size - want);
      const text = buf.toString("utf8");
      return text.length > chars ? text.slice(text.length - chars) : text;
    } finally {
      await fh.close();
    }
  } catch {
    return undefined;
  }
}

/** Small text file contents, or undefined. */
export async function readSmall(path: string, max = 1 << 20): Promise<string | undefined> {
  try {
    if ((await stat(path)).size > max) return undefined;
    return await readFile(path, "utf8");
  } catch {
    return undefined;
  }
}

/** First ≤4 KiB of a file as text (for quick shape checks), or "". */
export async function peek(path: string, bytes = 4096): Promise<string> {
  try {
    const fh = await open(path, "r");
    try {
      const buf = Buffer.alloc(bytes);
      const { bytesRead } = await fh.read(buf, 0, bytes, 0);
      return buf.subarray(0, bytesRead).toString("utf8");
    } finally {
      await fh.close();
    }
  } catch {
    return "";
  }
}
