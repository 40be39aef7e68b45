/** A one-line text being edited: its value and the cursor (a code-unit offset). */
export interface EditState {
  value: string;
  cursor: number;
}

const isWord = (ch: string | undefined) => ch !== undefined && /[\p{L}\p{N}_]/u.test(ch);

/** Offset of the start of the word before the cursor (Alt/Ctrl-Left). */
export function wordLeft(s: string, at: number): number {
  let i = Math.min(at, s.length);
  while (i > 0 && !isWord(s[i - 1])) i--;
  while (i > 0 && isWord(s[i - 1])) i--;
  return i;
}

/** Offset just past the end of the word after the cursor (Alt/Ctrl-Right). */
export function wordRight(s: string, at: number): number {
  let i = Math.max(0, at);
  while (i < s.length && !isWord(s[i])) i++;
  while (i < s.length && isWord(s[i])) i++;
  return i;
}

/** Inserts text at the cursor. */
export function insert(e: EditState, text: string): EditState {
  return {
    value: e.value.slice(0, e.cursor) + text + e.value.slice(e.cursor),
    cursor: e.cursor + text.length,
  };
}

/** Deletes the character before the cursor (Backspace). */
export function deleteBack(e: EditState): EditState {
  if (e.cursor === 0) return e;
  const before = [...e.value.slice(0, e.cursor)];
  before.pop();
  const head = before.join("");
  return { value: head + e.value.slice(e.cursor), cursor: head.length };
}

/** Deletes the character under the cursor (Delete). */
export function deleteForward(e: EditState): EditState {
  if (e.cursor >= e.value.length) return e;
  const after = [...e.value.slice(e.cursor)];
  after.shift();
  return { value: e.value.slice(0, e.cursor) + after.join(""), cursor: e.cursor };
}

/** Moves the cursor one character (by code point). */
export function step(e: EditState, by: 1 | -1): EditState {
  if (by < 0) {
    if (e.cursor === 0) return e;
    const before = [...e.value.slice(0, e.cursor)];
    before.pop();
    return { ...e, cursor: before.join("").length };
  }
  if (e.cursor >= e.value.length) return e;
  const ch = [...e.value.slice(e.cursor)][0] ?? "";
  return { ...e, cursor: e.cursor + ch.length };
}

/**
 * The part of the value a field of `room` columns shows, scrolled so the cursor is visible:
 * `{ before, at, after }` around the cursor, with `…` where text is cut off.
 */
export function visibleSlice(
  e: EditState,
  room: number,
): { before: string; at: string; after: string } {
  const chars = [...e.value];
  const cur = [...e.value.slice(0, e.cursor)].length;
  const w = Math.max(3, room);
  let start = 0;
  if (chars.length + 1 > w)
    start = Math.max(0, Math.min(cur - Math.floor(w * 0.7), chars.length + 1 - w));
  const end = Math.min(chars.length, start + w - 1);
  const left = start > 0;
  const right = end < chars.length && cur < end;
  const from = left ? start + 1 : start;
  const to = right ? end - 1 : end;
  const before = (left ? "…" : "") + chars.slice(from, cur).join("");
  const at = chars[cur] ?? " ";
  const after =
    cur + 1 <= to ? chars.slice(cur + 1, to).join("") + (right ? "…" : "") : right ? "…" : "";
  return { before, at, after };
}
