import { printable } from "../../core/printable.js";
import { cutTo, dropCols, expandTabs, wrapLine } from "./wrap.js";

/** At most this many matches are kept for n/N (a search never scans past it). */
export const MAX_MATCHES = 10_000;

/**
 * A long text seen through a window: line starts are found once (one pass of `indexOf`), and
 * only the lines on screen are ever cut out, tab-expanded and made printable — a 50 MB or
 * binary output opens without splitting it all.
 */
export class PagerText {
  readonly text: string;
  private readonly starts: number[];

  constructor(text: string) {
    this.text = text;
    const starts = [0];
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
    if (starts.length > 1 && starts.at(-1) === text.length) starts.pop();
    this.starts = starts;
  }

  get lineCount(): number {
    return this.starts.length;
  }

  /** Line `i` without its newline, at most `maxChars` long (a huge line is never copied whole). */
  line(i: number, maxChars = Number.POSITIVE_INFINITY): string {
    const start = this.starts[i] ?? this.text.length;
    const next = this.starts[i + 1];
    let end = next === undefined ? this.text.length : next - 1;
    if (end > start && this.text[end - 1] === "\r") end--;
    return this.text.slice(start, Math.min(end, start + maxChars));
  }

  /** Offset of line `i`'s first character. */
  lineStart(i: number): number {
    return this.starts[i] ?? this.text.length;
  }

  /** The line holding character offset `at`. */
  lineOf(at: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Offsets of `query` (case-insensitive), at most MAX_MATCHES. */
  find(query: string): number[] {
    if (!query) return [];
    const hay = this.text.toLowerCase();
    const needle = query.toLowerCase();
    const out: number[] = [];
    for (
      let i = hay.indexOf(needle);
      i !== -1 && out.length < MAX_MATCHES;
      i = hay.indexOf(needle, i + 1)
    )
      out.push(i);
    return out;
  }
}

/** One screen row of the pager: the text, and the line it belongs to. */
export interface PagerRow {
  line: number;
  text: string;
}

/**
 * The rows on screen from line `top`: each line tab-expanded and made printable; wrapped to
 * `width` or (no wrap) shifted by `left` columns and cut to `width`.
 */
export function pagerRows(
  t: PagerText,
  top: number,
  rows: number,
  width: number,
  opts: { wrap: boolean; left: number },
): PagerRow[] {
  const out: PagerRow[] = [];
  // A line can only grow by tab expansion, so this much of it always fills the window.
  const budget = opts.wrap ? rows * width + 1 : opts.left + width + 1;
  for (let i = top; i < t.lineCount && out.length < rows; i++) {
    const shown = printable(expandTabs(t.line(i, budget)));
    if (opts.wrap) {
      for (const r of wrapLine(shown, width, rows - out.length)) out.push({ line: i, text: r });
    } else out.push({ line: i, text: cutTo(dropCols(shown, opts.left), width) });
  }
  return out;
}
