import type { Event } from "../../model/attempt.js";
import { REPLACE_TASK_RE } from "./no-diff-after-replace.js";
import { isPartialEdit, isWholeFileWrite, namedPaths, samePath, seenExisting } from "./paths.js";
import { commandOf, toolCalls, writtenPaths } from "./shell.js";
import type { Detector } from "./types.js";

const FORMATTER_RE =
  /\b(prettier|black|gofmt|rustfmt|autopep8|yapf|isort|clang-format|eslint\s+--fix|ruff\s+format|dos2unix|unix2dos|iconv|perl\s+-pi|pre-commit\s+run|trailing-whitespace|end-of-file-fixer)\b/;

function isExactEdit(ev: Event): boolean {
  const cmd = commandOf(ev) ?? "";
  if (isPartialEdit(ev)) return true;
  // sed -i [-E …] 's/literal/replacement/…' — a substitution, not a whole-file rewrite.
  return (
    /\bsed\s+(?:-[a-zA-Z-]+\s+)*['"]?s([/|#,]).+?\1/.test(cmd) &&
    /\bsed\s+(?:-\S+\s+)*-[a-zA-Z]*i/.test(cmd)
  );
}

function isRewrite(ev: Event): boolean {
  const cmd = commandOf(ev) ?? "";
  return (
    isWholeFileWrite(ev) ||
    FORMATTER_RE.test(cmd) ||
    /\bcat\s*>|>[ \t]*[^\s<>]+[ \t]*<<|\bsed\s+-i\S*\s+['"]?s\/\.\*/.test(cmd)
  );
}

const base = (p: string): string => p.split("/").pop() ?? p;

/**
 * The task demands that content outside the edit stay as it is (byte for byte, untouched,
 * formatting preserved). Without that role a formatter after an edit is ordinary
 * development, not a loss.
 */
const PRESERVE_TASK_RE =
  /\b(?:byte[- ]for[- ]byte|byte[- ]identical|bytes? (?:unchanged|identical)|verbatim|(?:leave|keep|remain)s? (?:\w+ ){0,3}(?:unchanged|untouched|intact)|(?:do not|don't|must not|never) (?:change|modify|alter|touch|reformat) (?:\w+ ){0,3}(?:else|other|anything|the rest|formatting|whitespace)|preserv\w* (?:\w+ ){0,2}(?:formatting|whitespace|bytes|comments))\b/gi;
/** What a sentence keeps when it is about behaviour, not the file's text ("behavior must remain unchanged"). */
const BEHAVIOUR =
  /\b(?:behaviou?rs?|semantics|functionality|API|interfaces?|flows?|logic|support(?:ed)?|compatib\w*|results?|outputs?|paths?)\b/i;

/**
 * A sentence that keeps something under a condition ("If metadata is malformed, keep source
 * lines unchanged"): a rule of the program the task asks for, not of the agent's edits, which
 * a task states without one ("Keep everything else unchanged").
 */
const CONDITIONAL = /^\s*(?:[-*]\s+)?(?:if|when|whenever|unless|where|once)\b/i;

/** Tests as a sentence names them: "the test files", "the tests", "the test suite". */
/** A test file by its path: in a tests/ or spec/ folder, or named as one. */
const TEST_PATH =
  /(?:^|\/)(?:tests?|specs?|__tests__)\/|(?:^|\/)test_[^/]*$|_test\.\w+$|\.(?:test|spec)\.\w+$/i;

/**
 * The sentence around a span: from after the last sentence end (`.`, `!`, `?` before a space;
 * the dot of `src/app.ts` ends nothing) or line break, to the next.
 */
function sentenceAround(text: string, from: number, to: number): string {
  let start = from;
  while (start > 0 && text[start - 1] !== "\n" && !/[.!?]\s/.test(text.slice(start - 1, start + 1)))
    start--;
  const stop = text.slice(to).search(/[.!?](?=\s|$)|\n/);
  return text.slice(start, stop < 0 ? text.length : to + stop);
}

/** Whether a path lies in a path or folder a sentence names. */
function within(named: string, path: string): boolean {
  if (samePath(named, path)) return true;
  if (!named.endsWith("/")) return false;
  const dir = named.replace(/^\.?\//, "");
  return path.startsWith(dir) || path.includes(`/${dir}`);
}

/** A keeping sentence about all the rest of the work, not named files. */
const EVERYTHING_ELSE =
  /\b(?:everything|anything|all)\s+else\b|\bthe\s+rest\b|\ball\s+other\s+(?:files?|lines?|code|content)\b|\bevery\s+other\s+file\b/i;
/**
 * The tests as what is kept (the object of the keeping verb: "leave the test files untouched",
 * "do not modify the tests"), not tests named for another reason ("so the tests still pass").
 */
const TESTS_KEPT =
  /\b(?:leave|keep|preserve|do(?:\s+not|n't)\s+(?:modify|change|edit|touch|alter)|must\s+not\s+(?:modify|change|edit|touch|alter)|never\s+(?:modify|change|edit|touch|alter))\s+(?:any\s+of\s+|all\s+)?(?:the\s+)?(?:existing\s+|provided\s+|given\s+)?(?:unit\s+)?tests?(?:\s+(?:files?|suite|folder|directory))?\b|\btests?(?:\s+(?:files?|suite))?\s+(?:must|should)\s+(?:stay|remain|be\s+left)\b/i;

/**
 * Which files the task keeps as they are, by the sentences that keep content (not behaviour):
 * a sentence that names files or folders ("Leave the test files untouched", "every other line
 * of src/app.ts") keeps only those; one that names none ("keep everything else unchanged")
 * keeps every file. Undefined when no sentence keeps content.
 */
function protectedFiles(taskText: string): ((path: string) => boolean) | undefined {
  const scopes: ((path: string) => boolean)[] = [];
  for (const m of taskText.matchAll(PRESERVE_TASK_RE)) {
    const sentence = sentenceAround(taskText, m.index, m.index + m[0].length);
    if (BEHAVIOUR.test(sentence) || CONDITIONAL.test(sentence)) continue;
    // "everything else" / "the rest" keeps every file, whatever else the sentence names
    if (EVERYTHING_ELSE.test(sentence)) return () => true;
    const names = namedPaths(sentence);
    const tests = TESTS_KEPT.test(sentence);
    if (names.length === 0 && !tests) return () => true;
    scopes.push((p) => names.some((n) => within(n, p)) || (tests && TEST_PATH.test(p)));
  }
  return scopes.length > 0 ? (p) => scopes.some((s) => s(p)) : undefined;
}

/**
 * A whole-file rewrite or formatter run over a file that had received exact edits, where the
 * file was there before the run (a file the run first wrote whole is the agent's own).
 */
export const rewriteAfterEdit: Detector = {
  id: "exact.rewrite-after-edit",
  description: "a rewrite or formatter run after exact edits on protected content",
  family: "exact-replacement",
  taskRole: "the task demands content outside the edit stay unchanged",
  detect(attempt) {
    // a closed replacement map keeps every file; a sentence that keeps content, the files it names
    const keeps = REPLACE_TASK_RE.test(attempt.taskText)
      ? () => true
      : protectedFiles(attempt.taskText);
    if (!keeps) return [];
    const edited = new Map<string, number>();
    // the full path each edited name was edited under
    const editedAt = new Map<string, string>();
    // files the run itself created whole (a new test file, by a call writing that one file, never
    // seen before): no content of the task's to keep. By full path: another folder's file of
    // the same name is not the agent's.
    const own = new Set<string>();
    const written = new Set<string>();
    for (const call of toolCalls(attempt)) {
      const full = writtenPaths(call);
      const paths = full.map(base);
      const cmd = commandOf(call) ?? "";
      const creates =
        full.length === 1 && !isExactEdit(call) && isRewrite(call) && !cmd.includes(">>");
      for (const p of full) {
        if (creates && !written.has(p) && !seenExisting(attempt, p, call.index)) own.add(p);
        written.add(p);
      }
      if (isExactEdit(call)) {
        full.forEach((p, i) => {
          const b = paths[i] as string;
          if (!edited.has(b) && !own.has(p)) {
            edited.set(b, call.index);
            editedAt.set(b, p);
          }
        });
        continue;
      }
      if (edited.size === 0 || !isRewrite(call)) continue;
      const formatterTargets = FORMATTER_RE.test(cmd)
        ? [...edited.keys()].filter((p) => cmd.includes(p) || /\s\.(\s|$)/.test(cmd))
        : [];
      const targets = [
        ...new Set([...paths.filter((p) => edited.has(p)), ...formatterTargets]),
      ].filter((b) => keeps(editedAt.get(b) ?? b));
      const first = targets[0];
      if (first !== undefined) {
        const editIdx = edited.get(first) ?? call.index;
        return [
          {
            eventIndices: [editIdx, call.index],
            reason: `${FORMATTER_RE.test(cmd) ? "formatter" : "whole-file rewrite"} of ${first} after exact edit`,
          },
        ];
      }
    }
    return [];
  },
};
