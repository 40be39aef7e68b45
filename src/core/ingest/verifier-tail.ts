import { readSmall, readTail } from "./fs-util.js";

/** File line a tail of the file starts at (files up to 8 MiB; else undefined, no line cited). */
function lineOfTail(path: string, tail: string): number | undefined {
  const full = readSmall(path, 8 << 20);
  if (full === undefined) return undefined;
  const cut = full.length - tail.length;
  if (cut <= 0) return 1;
  let n = 1;
  for (let i = full.indexOf("\n"); i !== -1 && i < cut; i = full.indexOf("\n", i + 1)) n++;
  return n;
}

/** A verifier's output file as a capped tail, with the file and the line the tail starts at. */
export function readVerifierTail(
  file: string,
  cap: number,
): { text: string; file: string; firstLine?: number } | undefined {
  const text = readTail(file, cap);
  if (text === undefined) return undefined;
  const firstLine = lineOfTail(file, text);
  return { text, file, ...(firstLine !== undefined ? { firstLine } : {}) };
}
