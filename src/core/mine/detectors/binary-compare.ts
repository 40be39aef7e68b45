import type { Event } from "../../model/attempt.js";
import { escapeRe, writtenContent } from "./paths.js";
import { codeOf, commandOf, stripHeredocs, toolCalls, writtenPaths } from "./shell.js";
import type { Detector } from "./types.js";

/**
 * A task to re-implement an existing program, in one sentence: re-implement a binary or
 * executable, or an existing (original, reference, provided, given, compiled) tool, program or
 * command; a drop-in replacement of one; or a clone of a binary. Re-implementing a part of a
 * program ("re-implement the retry logic so the `sync` command no longer hangs") is none, nor
 * is a `git clone` of a repository whose command is to be fixed.
 */
const SPAN = String.raw`(?:[^.\n]|\.(?=\S)){0,200}`;
const EXISTING = String.raw`(?:existing|original|reference|provided|given|compiled)\s+(?:[\w\`-]+\s+){0,2}`;
/** "binary" as an adjective of something else: a binary search, tree, format, file… */
const ADJECTIVE = String.raw`(?!\s+(?:search|tree|heap|format|file|data|classif\w*|mode|number|string|operator|representation|encoding)\b)`;
const BINARY_TASK = new RegExp(
  [
    String.raw`\bre-?implement\w*\b${SPAN}\b(?:binary${ADJECTIVE}|executable|${EXISTING}(?:tool|program|command))\b`,
    String.raw`\bdrop-in replacement\b${SPAN}\b(?:binary${ADJECTIVE}|executable|tool|program|command)\b`,
    String.raw`\bclone\b${SPAN}\b(?:binary${ADJECTIVE}|executable)\b`,
    String.raw`\b(?:binary${ADJECTIVE}|executable)\b${SPAN}\b(?:re-?implement\w*|identical output|same output)\b`,
  ].join("|"),
  "i",
);
const COMPARE = /\b(cmp|diff|sha256sum|md5sum|sha1sum|xxd|hexdump|od)\b|==\s*\$\(|filecmp/;

/** A program running a process: `subprocess.run(`, `s.run(`, `check_output(`, `execSync(`… */
const RUNS_PROCESS =
  /(?:\.run|check_output|Popen|popen|getoutput|execSync|execFileSync|spawnSync)\s*\(/g;
/** A program comparing two values: `a == b`, `!=`, an assertion. */
const COMPARES = /[^=!<>]==[^=]|!=|\bassert\w*\b|\.equals?\(/;

/**
 * A program (a code cell, `python -c`, a heredoc or a script file) that runs two processes,
 * the original and the new program, and compares what they gave.
 */
function comparingProgram(text: string): boolean {
  return (text.match(RUNS_PROCESS)?.length ?? 0) >= 2 && COMPARES.test(text);
}

/** Whether a command runs a script of that name with an interpreter (`python3 /tmp/cmp.py`). */
function runsScript(cmd: string, name: string): boolean {
  return new RegExp(
    String.raw`\b(?:python[\d.]*|node|ruby|perl|bash|sh)\s+(?:-\S+\s+)*(?:\S*/)?${escapeRe(name)}(?![\w.])`,
  ).test(stripHeredocs(cmd));
}

/**
 * Whether a call compares outputs: a byte tool, a comparing program it runs (a code cell,
 * `python -c`, `python3 - <<EOF`), or a comparing script written earlier (or in the same command)
 * that it runs. A program only written is no comparison.
 */
function compares(call: Event, scripts: ReadonlySet<string>): boolean {
  const cmd = commandOf(call) ?? "";
  if (COMPARE.test(cmd) || comparingProgram(codeOf(call) ?? "")) return true;
  if (writtenPaths(call).length === 0 && comparingProgram(cmd)) return true;
  return [...scripts].some((name) => runsScript(cmd, name));
}

/** Re-implementing an existing binary: outputs never compared byte for byte with the original's. */
export const binaryNeverCompared: Detector = {
  id: "binary.never-compared",
  taskRole: "the task asks to re-implement an existing binary",
  description:
    "re-implementation of an existing binary whose output was never compared byte for byte",
  family: "binary-equivalence",
  detect(attempt) {
    if (!BINARY_TASK.test(attempt.taskText)) return [];
    const calls = toolCalls(attempt);
    // script files written with a comparing program: running one is a comparison
    const scripts = new Set<string>();
    let compared = false;
    for (const c of calls) {
      const content = writtenContent(c) ?? commandOf(c);
      if (content && comparingProgram(content))
        for (const p of writtenPaths(c)) scripts.add(p.split("/").pop() ?? p);
      if (compares(c, scripts)) {
        compared = true;
        break;
      }
    }
    if (calls.length === 0 || compared) return [];
    const last = calls.at(-1);
    return last
      ? [
          {
            eventIndices: [last.index],
            reason: "no byte-for-byte comparison against the original binary",
          },
        ]
      : [];
  },
};
