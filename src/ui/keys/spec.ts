import type { Key } from "ink";

/**
 * A key as written in a key table: a printable character (`j`, `G`, `?`), a named key
 * (`up`, `down`, `left`, `right`, `pgup`, `pgdn`, `home`, `end`, `enter`, `esc`, `tab`,
 * `space`, `backspace`) or a modifier and a key (`shift+tab`, `ctrl+s`,
 * `alt+left`, `ctrl+right`).
 */
export type KeySpec = string;

const NAMED: Record<string, (k: Key, input: string) => boolean> = {
  up: (k) => k.upArrow,
  down: (k) => k.downArrow,
  left: (k) => k.leftArrow,
  right: (k) => k.rightArrow,
  pgup: (k) => k.pageUp,
  pgdn: (k) => k.pageDown,
  home: (k, i) => k.home || (k.ctrl && i === "a"),
  end: (k, i) => k.end || (k.ctrl && i === "e"),
  enter: (k) => k.return,
  esc: (k) => k.escape,
  tab: (k) => k.tab && !k.shift,
  space: (_k, i) => i === " ",
  // Ink 6 reports the Backspace key (\x7f) as `delete`, like the Delete key: both delete back.
  backspace: (k) => k.backspace || k.delete,
};

const LABEL: Record<string, string> = {
  up: "↑",
  down: "↓",
  left: "←",
  right: "→",
  pgup: "PgUp",
  pgdn: "PgDn",
  home: "Home",
  end: "End",
  enter: "Enter",
  esc: "Esc",
  tab: "Tab",
  space: "Space",
  backspace: "Backspace",
};

/** True when the keypress (`input`, `key` as Ink reports them) is the key `spec`. */
export function keyMatches(spec: KeySpec, input: string, key: Key): boolean {
  const plus = spec.length > 1 ? spec.lastIndexOf("+") : -1;
  if (plus > 0) {
    const mod = spec.slice(0, plus);
    const base = spec.slice(plus + 1);
    if (mod === "shift" && base === "tab") return key.tab && key.shift;
    const named = NAMED[base];
    const baseHit = named ? named({ ...key, ctrl: false }, input) : input === base;
    if (mod === "ctrl") return key.ctrl && baseHit;
    if (mod === "alt") return key.meta && !key.escape && baseHit;
    return false;
  }
  const named = NAMED[spec];
  if (named) {
    // Alt/Ctrl + arrow are word moves, not plain moves.
    if ((key.leftArrow || key.rightArrow) && (key.ctrl || (key.meta && !key.escape))) return false;
    return named(key, input);
  }
  return input === spec && !key.ctrl && !(key.meta && !key.escape);
}

/** How a key is written in help and hints: `↑`, `Enter`, `Ctrl-S`, `Shift-Tab`, `j`. */
export function keyLabel(spec: KeySpec): string {
  const plus = spec.length > 1 ? spec.lastIndexOf("+") : -1;
  if (plus > 0) {
    const mod = spec.slice(0, plus);
    const base = spec.slice(plus + 1);
    const m = mod === "ctrl" ? "Ctrl" : mod === "alt" ? "Alt" : "Shift";
    return `${m}-${LABEL[base] ?? base.toUpperCase()}`;
  }
  return LABEL[spec] ?? spec;
}
