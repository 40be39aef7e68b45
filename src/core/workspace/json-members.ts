/**
 * The members of a JSON object in a buffer, located without parsing their values: each key
 * with the byte span of its value, so a reader can `JSON.parse` only the few parts it needs
 * of a large document (`fire show` reads three columns of the 2 MB index at 10,000
 * attempts). For bytes fire wrote and has checked (by their hash); malformed input throws.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COLON = 0x3a;
const COMMA = 0x2c;

const isSpace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function malformed(at: number): never {
  throw new SyntaxError(`malformed JSON at byte ${at}`);
}

function skipSpace(b: Uint8Array, i: number): number {
  while (isSpace(b[i])) i++;
  return i;
}

/** The end (after the closing quote) of the string whose opening quote is at `i`. */
function stringEnd(b: Buffer, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = b.indexOf(QUOTE, from);
    if (q < 0) malformed(i);
    let slashes = 0;
    for (let k = q - 1; b[k] === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** The end of the JSON value starting at `i` (no leading space). */
function valueEnd(b: Buffer, i: number): number {
  const c = b[i];
  if (c === QUOTE) return stringEnd(b, i);
  if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
    let depth = 0;
    let j = i;
    while (j < b.length) {
      const d = b[j]!;
      if (d === QUOTE) {
        j = stringEnd(b, j);
        continue;
      }
      if (d === OPEN_ARRAY || d === OPEN_OBJECT) depth++;
      else if (d === CLOSE_ARRAY || d === CLOSE_OBJECT) {
        depth--;
        if (depth === 0) return j + 1;
      }
      j++;
    }
    return malformed(i);
  }
  // a number, true, false or null: up to the next delimiter
  let j = i;
  while (j < b.length) {
    const d = b[j];
    if (d === COMMA || d === CLOSE_ARRAY || d === CLOSE_OBJECT || isSpace(d)) break;
    j++;
  }
  if (j === i) malformed(i);
  return j;
}

/** Byte span `[start, end)` of a value in the buffer. */
export type Span = readonly [number, number];

/**
 * The members of the object starting at byte `at` (spaces before it allowed): key → span of
 * its value. A key given twice keeps its last value, as `JSON.parse` does.
 */
export function objectMembers(b: Buffer, at = 0): Map<string, Span> {
  const members = new Map<string, Span>();
  let i = skipSpace(b, at);
  if (b[i] !== OPEN_OBJECT) malformed(i);
  i = skipSpace(b, i + 1);
  if (b[i] === CLOSE_OBJECT) return members;
  for (;;) {
    if (b[i] !== QUOTE) malformed(i);
    const keyEnd = stringEnd(b, i);
    const key = JSON.parse(b.toString("utf8", i, keyEnd)) as string;
    i = skipSpace(b, keyEnd);
    if (b[i] !== COLON) malformed(i);
    const start = skipSpace(b, i + 1);
    const end = valueEnd(b, start);
    members.set(key, [start, end]);
    i = skipSpace(b, end);
    if (b[i] === CLOSE_OBJECT) return members;
    if (b[i] !== COMMA) malformed(i);
    i = skipSpace(b, i + 1);
  }
}

/** The value of member `key` (parsed), or undefined when the object has none. */
export function memberValue(b: Buffer, members: Map<string, Span>, key: string): unknown {
  const span = members.get(key);
  return span && JSON.parse(b.toString("utf8", span[0], span[1]));
}
