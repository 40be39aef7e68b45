import { closeSync, openSync, readSync } from "node:fs";

/** Longest JSONL line we parse; longer lines are reported and skipped without buffering. */
export const MAX_LINE_BYTES = 32 * 1024 * 1024;

export type LineItem =
  | { type: "line"; line: number; text: string }
  | { type: "too-long"; line: number; bytes: number };

/**
 * Stream a file line by line (1-based line numbers, blank lines skipped).
 * Memory stays bounded by the longest accepted line: an over-long line is
 * counted and reported, never held in memory.
 */
export async function* readLines(
  path: string,
  opts: { signal?: AbortSignal; maxLineBytes?: number } = {},
): AsyncGenerator<LineItem> {
  const max = opts.maxLineBytes ?? MAX_LINE_BYTES;
  // Synchronous chunk reads: a promise-based read is a thread-pool round trip per
  // chunk, several times the cost of the read itself; units are read in parse workers
  // (or in small workspaces), so blocking for one 256 KiB read costs nothing.
  const fd = openSync(path, "r");
  // One reused read buffer: complete lines become strings at once, only a
  // line that spans chunks is copied out, so memory stays bounded.
  const chunkBuf = Buffer.allocUnsafe(CHUNK_BYTES);
  let parts: Buffer[] = [];
  let partBytes = 0;
  let skipping = false;
  let skippedBytes = 0;
  let lineNo = 0;
  try {
    for (;;) {
      if (opts.signal?.aborted) return;
      const bytesRead = readSync(fd, chunkBuf, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      const chunk = chunkBuf.subarray(0, bytesRead);
      let start = 0;
      for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
        lineNo++;
        const piece = chunk.subarray(start, nl);
        start = nl + 1;
        if (skipping) {
          yield { type: "too-long", line: lineNo, bytes: skippedBytes + piece.length };
          skipping = false;
          skippedBytes = 0;
          continue;
        }
        if (partBytes + piece.length > max) {
          yield { type: "too-long", line: lineNo, bytes: partBytes + piece.length };
          parts = [];
          partBytes = 0;
          continue;
        }
        const text = partBytes
          ? Buffer.concat([...parts, piece]).toString("utf8")
          : piece.toString("utf8");
        parts = [];
        partBytes = 0;
        if (!isBlank(text)) yield { type: "line", line: lineNo, text };
      }
      const rest = chunk.subarray(start);
      if (!rest.length) continue;
      if (skipping) skippedBytes += rest.length;
      else if (partBytes + rest.length > max) {
        skipping = true;
        skippedBytes = partBytes + rest.length;
        parts = [];
        partBytes = 0;
      } else {
        parts.push(Buffer.from(rest)); // copy: the read buffer is reused
        partBytes += rest.length;
      }
    }
    if (skipping) yield { type: "too-long", line: lineNo + 1, bytes: skippedBytes };
    else if (partBytes) {
      const text = Buffer.concat(parts).toString("utf8");
      if (!isBlank(text)) yield { type: "line", line: lineNo + 1, text };
    }
  } finally {
    closeSync(fd);
  }
}

const CHUNK_BYTES = 256 * 1024;

/** Blank line check without allocating a trimmed copy. */
function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}
