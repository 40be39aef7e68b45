import { join } from "node:path";
import { readSmall, subdirs } from "./fs-util.js";

/** Shorter text than this is a flag value, not a task's instruction. */
const MIN_CHARS = 40;
/** A here-document's start, `<< 'TERM'` (quotes optional), at the end of its line. */
const HEREDOC =
  /<<-?[ \t]*(?:'([A-Za-z_][\w-]{0,40})'|"([A-Za-z_][\w-]{0,40})"|([A-Za-z_][\w-]{0,40}))[ \t]*\n/g;
/** The redirect target before it on the same line: `> <target>`. */
const TARGET = />[ \t]*([^\s>]{1,300})[ \t]*$/;
/** A file a launcher writes the instruction to. */
const INSTRUCTION_FILE = /(?:instruction|prompt|task)[^/]*$/i;
/**
 * Where a launch command gives the agent its instruction as a single-quoted word: after a flag
 * that takes it (`-p`, `--prompt`, `--text`, `-t`, …) or `--` before a last positional
 * argument; or as the first word after a `run` sub-command and its options (`opencode run
 * --format=json '…'`). An option's dashes cannot also be read as part of its name (each
 * option one way only: linear on a long command line).
 */
const PROMPT_FLAG =
  /(?:(?:^|\s)(?:--prompt|-p|--print|--instruction|--task|--message|-m|--text|-t|--)|(?:^|\s)run(?:[ \t]+-{1,2}(?!-)\w[\w-]*(?:=[^\s']+)?)*)\s+'((?:[^']|'\\''){0,65536})'/g;
/** The instruction echoed into the agent's input (`echo '…' | qwen -y`). */
const ECHOED = /(?:^|\s)echo\s+'((?:[^']|'\\''){0,65536})'[ \t]*\|/g;

/** Here-document bodies written to a file named like an instruction, prompt or task. */
function heredocs(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(HEREDOC)) {
    const at = m.index ?? 0;
    const lineStart = text.lastIndexOf("\n", at - 1) + 1;
    const target = TARGET.exec(text.slice(Math.max(lineStart, at - 400), at))?.[1];
    const term = m[1] ?? m[2] ?? m[3];
    if (!target || !term || !INSTRUCTION_FILE.test(target)) continue;
    const start = at + m[0].length;
    // the terminator is a line of its own
    let end = text.indexOf(`\n${term}`, start - 1);
    while (
      end !== -1 &&
      !/^(?:\r?\n|$)/.test(text.slice(end + 1 + term.length, end + 3 + term.length))
    )
      end = text.indexOf(`\n${term}`, end + 1);
    if (end > start) out.push(text.slice(start, end));
  }
  return out;
}

/** Single-quoted shell arguments of instruction flags, unquoted. */
function promptArgs(text: string): string[] {
  return [...text.matchAll(PROMPT_FLAG), ...text.matchAll(ECHOED)].map((m) =>
    (m[1] ?? "").replaceAll("'\\''", "'"),
  );
}

/**
 * The instruction as a harness handed it to the agent's launch command, for trials that keep
 * it nowhere else (a custom agent whose trajectory starts with its own words): a Harbor
 * trial's logged commands (`agent/command-N/command.txt`, `trial.log`'s "Running command:"
 * lines). A here-document written to an instruction / prompt / task file, or the quoted
 * argument of a prompt flag; the longest wins. "" when none is found.
 */
export function launchInstruction(dir: string): string {
  const texts: string[] = [];
  const agent = join(dir, "agent");
  for (const d of subdirs(agent))
    if (/^command-\d+$/.test(d)) texts.push(readSmall(join(agent, d, "command.txt")) ?? "");
  texts.push(readSmall(join(dir, "trial.log"), 8 << 20) ?? "");
  let best = "";
  for (const t of texts)
    for (const c of [...heredocs(t), ...promptArgs(t)]) {
      const s = c.trim();
      if (s.length >= MIN_CHARS && s.length > best.length && /\s/.test(s)) best = s;
    }
  return best;
}
