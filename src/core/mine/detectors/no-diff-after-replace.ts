import { commandOf, isWrite, toolCalls } from "./shell.js";
import type { Detector } from "./types.js";

/** Not a word quoted alone (`"replace"`, `‘exact’`): the start of a keyword that is a shown value. */
const QUOTE = "[\"'`‘’“”]";
const ONE_WORD_VALUE = `(?!(?<=${QUOTE})[\\w-]+${QUOTE})`;

/** One character of a sentence (a dot inside a token, `a.py`, is no sentence end). */
const ANY = String.raw`(?:[^.\n]|\.(?=\S))`;
/**
 * One character of the replacement's own clause: a purpose, relative or conditional clause
 * ("so the command line is passed exactly", "that matches exactly", "if …") or a `;` starts
 * another statement, whose exactness is about something else. Bounded lookahead: linear.
 */
const OPENER = String.raw`\b(?:so|such|in order|to (?:ensure|make sure|guarantee)|which|whose|that|while|because|when|whenever|if|unless|where|but)\b`;
const CLAUSE = String.raw`(?:(?!${OPENER})[^.\n;]|\.(?=\S))`;
/** A word of the replacement value, not a clause opener (`.` inside a token: `a.b`). */
const WORD = String.raw`(?!${OPENER})(?:[^\s.;,]|\.(?=\S))+\s+`;
/** What the rest of the content is told to stay: unchanged, untouched, byte for byte. */
const KEPT =
  "(?:unchanged|untouched|intact|as[- ]is|as (?:it|they) (?:is|are|was|were)|the same|byte[- ]for[- ]byte|byte[- ]identical|verbatim)";
/**
 * The exactness of a replacement map that governs the content: nothing else changes, the rest
 * stays as it is, or the replacement value itself is exact ("with exactly four spaces",
 * "with its new name exactly as listed", "'foo' with 'bar' exactly": within three words of its
 * `with`/`by`/`for`, in the replacement's own clause). "byte-level", "the default stays
 * unchanged", "so it is passed exactly as given" govern no file's content.
 */
const GOVERNS = String.raw`${ANY}{0,200}\b(?:(?:everything|anything) else\b|the rest\b|(?:all|every|any) (?:other|remaining)\b|(?:other|remaining) (?:lines?|text|content|parts?|bytes|characters|files?|keys|values|sections?)\b)(?:[^.\n;]){0,60}?\b${KEPT}(?![\w-])|${ANY}{0,200}\b${ONE_WORD_VALUE}nothing else\b|${CLAUSE}{0,160}?\b(?:with|by|for|to)\s+(?:${WORD}){0,3}?${ONE_WORD_VALUE}(?:exact(?:ly)?|verbatim|byte[- ]for[- ]byte|byte[- ]identical)(?![\w-])`;

/**
 * A closed replacement map: replace, and nothing else (the rest unchanged, the replacement
 * exact, the only edits allowed). The replacement and its exactness in one sentence ("Only use
 * the standard library" is none), the exactness governing the content or the replacement
 * value, not another clause ("with a byte-level tokenizer", "so that the default stays
 * unchanged" are none), and a replacement the task asks for, not one it forbids ("must not
 * replace the whole configuration" is none). "Only" closes the map where it limits the edits
 * ("the only edits you may make are to replace words", "Only replace the copyright line", a
 * sentence that opens "Only the version string is replaced"); inside a sentence, after the
 * replacement or in a phrase, it scopes or conditions one ("substitutions only in body
 * text", "replace a value only when it matches", "the input basename with only the final
 * extension replaced by `.md`", "read-only"), which leaves everything else to the task. A word quoted alone is a value the task shows (a schema's
 * `"kind": "replace"` beside `"exact"`), not what it asks; a quoted sentence still asks.
 */
export const REPLACE_TASK_RE = new RegExp(
  String.raw`(?<!\b(?:not|never|n't|without) )\b${ONE_WORD_VALUE}(replace|substitut\w*|rename every|change every)\b(?:${GOVERNS})|\b${ONE_WORD_VALUE}exact(ly)?\b${CLAUSE}{0,60}(?<!\b(?:not|never|n't|without) )\b${ONE_WORD_VALUE}replace[sd]?\b|(?:(?<![\w-])only (?:edits?|changes?|modifications?)\b|(?:^|[.!?:;]\s+|\n\s*)only\b)(?:[^.\n]|\.(?=\S)){0,120}(?<!\b(?:not|never|n't|without) )\b${ONE_WORD_VALUE}replace[sd]?\b|(?<![\w-])only (?:to )?(?:replace|substitute)\b`,
  "i",
);
const DIFF_RE = /\b(diff|cmp|git\s+diff|comm|sha256sum|md5sum)\b/;

/** Closed replacement task: files written, but no mechanical diff after the last write. */
export const noDiffAfterReplace: Detector = {
  id: "exact.no-diff-after-replace",
  taskRole: "the task gives a closed replacement map",
  description: "a closed replacement task stopped after writing without a mechanical diff",
  family: "exact-replacement",
  detect(attempt) {
    if (!REPLACE_TASK_RE.test(attempt.taskText)) return [];
    const calls = toolCalls(attempt);
    const lastWrite = calls.filter(isWrite).at(-1);
    if (!lastWrite) return [];
    const diffed = calls.some((c) => c.index > lastWrite.index && DIFF_RE.test(commandOf(c) ?? ""));
    if (diffed) return [];
    return [
      {
        eventIndices: [lastWrite.index],
        reason: "no diff/cmp of the replaced files after the last write",
      },
    ];
  },
};
