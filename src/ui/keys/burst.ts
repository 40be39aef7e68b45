import type { Key } from "ink";

const PLAIN: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

/** The key of one character of a burst (`\r` is Enter, `\t` Tab, `\x7f` Backspace, ^A–^Z Ctrl). */
function keyOfChar(ch: string): [string, Key] {
  if (ch === "\r" || ch === "\n") return ["", { ...PLAIN, return: true }];
  if (ch === "\t") return ["", { ...PLAIN, tab: true }];
  if (ch === "\u007F" || ch === "\b") return ["", { ...PLAIN, backspace: true }];
  const code = ch.codePointAt(0) ?? 0;
  if (code >= 1 && code <= 26) return [String.fromCharCode(code + 96), { ...PLAIN, ctrl: true }];
  return [ch, { ...PLAIN, shift: /[A-Z]/.test(ch) }];
}

/**
 * Splits what Ink hands over as one input into keypresses. A terminal (or a fast typist, or
 * a test) can deliver `jjj` in one write; Ink passes it as one string, which no table entry
 * matches. Escape sequences arrive one per call already (Ink's input parser splits them), so
 * only plain multi-character input is split, by code point.
 */
export function splitBurst(input: string, key: Key): [string, Key][] {
  if ([...input].length <= 1 || key.ctrl || key.escape) return [[input, key]];
  if (key.meta) return [[input, key]];
  return [...input].map(keyOfChar);
}
