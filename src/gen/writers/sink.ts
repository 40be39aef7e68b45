import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

/** Counts what the generator wrote. */
export interface WriteStats {
  files: number;
  bytes: number;
}

export function newStats(): WriteStats {
  return { files: 0, bytes: 0 };
}

export async function writeText(path: string, text: string, stats: WriteStats): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  stats.files += 1;
  stats.bytes += Buffer.byteLength(text);
}

export async function writeJson(path: string, value: unknown, stats: WriteStats): Promise<void> {
  await writeText(path, `${JSON.stringify(value, null, 2)}\n`, stats);
}

/** Stream lines to a file with back-pressure; never holds the whole file in memory. */
export async function writeLines(
  path: string,
  lines: Iterable<string>,
  stats: WriteStats,
): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const out = createWriteStream(path);
  try {
    for (const line of lines) {
      const chunk = `${line}\n`;
      stats.bytes += Buffer.byteLength(chunk);
      if (!out.write(chunk)) await once(out, "drain");
    }
  } finally {
    out.end();
    await once(out, "close");
  }
  stats.files += 1;
}
