/**
 * Whether a quote an LLM answer cites is in the text it cites: both read alike (a terminal's
 * escapes and control characters dropped, white space folded), the quote split where the
 * prompt cut or joined text, and most of its characters found.
 */
import { TERMINAL_ESCAPES } from "../core/ingest/verifier-tests.js";

/**
 * A terminal's escapes (the ingest's reading) and a colour code whose ESC was lost (`[31m`),
 * as a model reproduces what it was shown.
 */
const ANSI = new RegExp(`${TERMINAL_ESCAPES.source}|\\[[0-9;]{0,12}m`, "g");

/**
 * Text as the "this quote is there" checks compare it, the quote and the text it must be in
 * alike: a terminal's escapes and other control characters dropped (a model cannot reproduce
 * what it was not shown as text), white space folded.
 */
export const squash = (s: string): string =>
  s
    .replace(ANSI, "")
    .replace(/[\x00-\x08\x0e-\x1f\x7f]/g, "")
    .replace(/\s+/g, " ")
    .trim();

/** Quotation marks and backticks a model wraps a quote in. */
export const QUOTE_MARKS = /^["'`“”‘’«»]+|["'`“”‘’«»]+$/g;

/**
 * The parts of a quote worth looking for: split where the prompt cut or joined the text, or
 * the model left a gap (`…`, `...`; a line whose own text holds one is found piece by piece
 * too), each without the quotation marks or backticks around it.
 */
function quotePieces(excerpt: string): string[] {
  return excerpt
    .split(/…\[\d+ chars cut\]…|…|⏎|\.\.\./)
    .map((p) => squash(squash(p).replace(QUOTE_MARKS, "")).replace(/^\$ /, ""))
    .filter((p) => p.length >= 4);
}

/** The share of a quote's characters that must be found where it says. */
const QUOTE_FOUND = 0.8;

/**
 * Whether a quote is in `text` (both squashed): its pieces, each read whole in windows of up
 * to 120 characters, holding at least QUOTE_FOUND of its characters are found there. One word
 * of a misquote (a tool's name, a command), or a true line with made-up words after it, does
 * not make it found.
 */
export function quoteIn(excerpt: string, text: string): boolean {
  let all = 0;
  let hit = 0;
  for (const p of quotePieces(excerpt)) {
    for (let at = 0; at < p.length; at += 120) {
      const q = p.slice(at, at + 120);
      all += q.length;
      if (text.includes(q)) hit += q.length;
    }
  }
  return all > 0 && hit >= QUOTE_FOUND * all;
}
