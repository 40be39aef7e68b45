import { commandOf, isWrite, toolCalls } from "./shell.js";
import type { Detector } from "./types.js";

/** Not a word quoted alone (`"replace"`, `‘exact’`): the start of a keyword that is a shown value. */
const QUOTE = "[\"'`‘’“”]";
const ONE_WORD_VALUE = `(?!(?<=${QUOTE})[\\w-]+${QUOTE})`;

/**
 * A closed replacement map: replace, and nothing else (exactly, unchanged, verbatim, the only
 * edits allowed). The replacement and its exactness in one sentence ("Only use the standard
 * library" is none), and a replacement the task asks for, not one it forbids ("must not
 * replace the whole configuration" is none). "Only" closes the map where it limits the edits
 * ("the only edits you may make are to replace words", "Only replace the copyright line", a
 * sentence that opens "Only the version string is replaced"); inside a sentence, after the
 * replacement or in a phrase, it scopes or conditions one ("substitutions only in body
 * text", "replace a value only when it matches", "the input basename with only the final
 * extension replaced by `.md`", "read-only"), which leaves everything else to the task. A word quoted alone is a value the task shows (a schema's
 * `"kind": "replace"` beside `"exact"`), not what it asks; a quoted sentence still asks.
 */
export const REPLACE_TASK_RE = new RegExp(
  String.raw`(?<!\b(?:not|never|n't|without) )\b${ONE_WORD_VALUE}(replace|substitut\w*|rename every|change every)\b(?:[^.\n]|\.(?=\S)){0,200}\b${ONE_WORD_VALUE}(exact(ly)?|nothing else|byte|unchanged|verbatim)\b|(?:\b${ONE_WORD_VALUE}exact(ly)?|(?<![\w-])only (?:edits?|changes?|modifications?)\b|(?:^|[.!?:;]\s+|\n\s*)only\b)(?:[^.\n]|\.(?=\S)){0,120}(?<!\b(?:not|never|n't|without) )\b${ONE_WORD_VALUE}replace[sd]?\b|(?<![\w-])only (?:to )?(?:replace|substitute)\b`,
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
