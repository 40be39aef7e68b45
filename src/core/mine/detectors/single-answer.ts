import type { Attempt, Event } from "../../model/attempt.js";
import { taskSaysExists } from "./overwrote-existing.js";
import { namedFiles, samePath } from "./paths.js";
import { commandOf, outputOf, stripHeredocs, toolCalls, writtenPaths } from "./shell.js";
import type { Detector } from "./types.js";

const MULTI_TASK =
  /\ball (?:the )?valid (?:answers|solutions)\b|\bevery valid\b|\ball (?:possible|valid) \w+,? one per line\b|\bone per line\b[\s\S]{0,80}\ball\b|\ball\b[\s\S]{0,80}\bone per line\b/i;
/**
 * The shell keeping only the first result (`head -1`, `sed -n 1p`, `awk 'NR==1'`). A program's
 * own `[0]`, `break` or `next(` says nothing: scripts index and loop for every other reason.
 */
const FIRST_ONLY = /\bhead\s+-(?:n\s*)?1\b|\bsed\s+-n\s+['"]?1p\b|\bawk\s+['"]NR\s*==\s*1['"]/;

/** How many answer lines a write shows: a `wc -l` count, the echoed/catted lines, or 1 for a single echo. */
function shownLines(cmd: string, out: string): number | undefined {
  if (/\|\s*wc\s+-l\s*$/.test(cmd.trim())) {
    const n = Number.parseInt(out.trim().split(/\s+/)[0] ?? "", 10);
    return Number.isNaN(n) ? undefined : n;
  }
  if (/\b(cat|tee)\b/.test(cmd)) return out.split("\n").filter((l) => l.trim()).length;
  const echoed = ECHOED.exec(cmd);
  if (echoed) {
    // `echo -e "a\nb"`, `echo $'a\nb'`, a quoted line break: one answer a line
    const escapes = /e/.test(echoed[1] ?? "") || echoed[2] === "$'";
    const body = echoed[3] ?? "";
    return (escapes ? body.split(/\\n|\n/) : body.split("\n")).filter((l) => l.trim()).length;
  }
  if (/\becho\s+[^|>]*>/.test(cmd)) return 1;
  return undefined;
}

/** An echo of one quoted argument into a file: its flags, its quote and its text. */
const ECHOED = /\becho\s+((?:-[neE]+\s+)*)("|'|\$')((?:(?!\2)[^\\]|\\[\s\S]){0,2000}?)['"]\s*>/;

/** Reads the attempt made of a file after the write: `wc -l f` gives its count, `cat f` its lines. */
function linesReadAfter(
  calls: readonly Event[],
  attempt: Attempt,
  after: Event,
  file: string,
): number | undefined {
  let seen: number | undefined;
  for (const c of calls) {
    if (c.index <= after.index) continue;
    if (writtenPaths(c).some((w) => samePath(file, w))) return undefined;
    const cmd = stripHeredocs(commandOf(c) ?? "").trim();
    const read = cmd.match(/^(wc\s+-l|cat)\s+(?:<\s*)?(\S+)$/);
    if (!read?.[2] || !samePath(file, read[2].replace(/^['"]|['"]$/g, ""))) continue;
    const out = outputOf(attempt, c);
    if (read[1]?.startsWith("wc")) {
      const n = Number.parseInt(out.trim().split(/\s+/)[0] ?? "", 10);
      if (!Number.isNaN(n)) seen = n;
    } else seen = out.split("\n").filter((l) => l.trim()).length;
  }
  return seen;
}

/**
 * "All valid answers, one per line" task whose final answer file holds a single answer. The
 * answer file is one the task names and does not give as an input: a write elsewhere (a status
 * note, a scratch file) says nothing about the answer, and a task that names no file gives no
 * answer file to read.
 */
export const singleAnswer: Detector = {
  id: "answers.single-emitted",
  taskRole: "the task asks for every valid answer",
  description:
    "an all-valid-answers task answered with one line (enumeration stopped at the first answer)",
  family: "multi-answer-enumeration",
  detect(attempt) {
    if (!MULTI_TASK.test(attempt.taskText)) return [];
    // the files the task names that it does not give as inputs (`the provided board.fen`)
    const answers = namedFiles(attempt.taskText).filter(
      (n) => !taskSaysExists(attempt.taskText, n),
    );
    const last = toolCalls(attempt)
      .filter((c) => writtenPaths(c).some((w) => answers.some((n) => samePath(n, w))))
      .at(-1);
    if (!last) return [];
    const cmd = commandOf(last) ?? "";
    const shown = shownLines(cmd, outputOf(attempt, last));
    // what a later read of the answer file showed comes before what the write seemed to write;
    // a count of one beside a write of several lines is a last line without its line break
    const file = writtenPaths(last).find((w) => answers.some((n) => samePath(n, w)));
    const read = file ? linesReadAfter(toolCalls(attempt), attempt, last, file) : undefined;
    // (a read only takes a single answer back: a read showing one line adds nothing to the write)
    let lines = shown;
    if (read !== undefined && read !== 1) lines = read;
    else if (read === 1 && shown !== undefined && shown > 1) lines = undefined;
    if (FIRST_ONLY.test(stripHeredocs(cmd)))
      return [
        { eventIndices: [last.index], reason: "answer file written from the first result only" },
      ];
    if (lines === 1)
      return [{ eventIndices: [last.index], reason: "answer file holds a single answer" }];
    return [];
  },
};
