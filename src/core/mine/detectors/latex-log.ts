import type { Attempt, Event } from "../../model/attempt.js";
import {
  commandOf,
  outputOf,
  resultOf,
  segments,
  stages,
  stripHeredocs,
  toolCalls,
} from "./shell.js";
import type { Detector } from "./types.js";

const LATEX_BUILD = /\b(pdflatex|xelatex|lualatex|latexmk|tectonic)\b/;
const LATEX_TASK = /\b(overfull|underfull|hbox|latex warnings?|no warnings)\b/i;
/**
 * A search of the log, or for box warnings, with any reader: grep, rg, sed, awk, a pager, or a
 * program (`python3 -c "…open('main.log')…"`, whose code may hold `;`). A log file by its name,
 * not a call (`console.log(`, `math.log(`) nor a redirect's target (`> check.log`).
 */
const LOG_CHECK =
  /\b(?:[ef]?grep|rg|ag|cat|tail|less|more|head|awk|sed(?![^|;&\n]{0,300}\s-[a-zA-Z]*i)|perl)\b[^|;&]{0,500}(?:(?<!>\s{0,3}[\w./-]{0,200})[\w/-]\.log\b(?!\s*\()|overfull|underfull|hbox)|\b(?:python[\d.]*|node|ruby)\b[\s\S]{0,1000}?(?:(?<!>\s{0,3}[\w./-]{0,200})[\w/-]\.log\b(?!\s*\()|overfull|underfull|hbox)/i;
/** A search of the build's own output for box warnings, piped into it (`pdflatex … | grep -i overfull`). */
const OUTPUT_SEARCH =
  /\b(?:[ef]?grep|rg|ag|awk|sed|perl)\b[^|;&]{0,500}(?:overfull|underfull|hbox|warning)/i;
/** A box warning as TeX prints it, on the terminal as in the log. */
const BOX_WARNING = /\b(?:Overfull|Underfull) \\[hv]box\b/;
/**
 * The line a finished run ends with: TeX's, tectonic's (`note: Writing `main.pdf``) or
 * latexmk's (`Latexmk: All targets (main.pdf) are up-to-date`).
 */
const RUN_DONE =
  /\bOutput written on\b|\bWriting [`'"][^`'"\n]{1,300}\.(?:pdf|dvi|xdv)[`'"]|\bLatexmk: All targets\b[^\n]{0,300}\bup-to-date\b/;
/** A build whose terminal output the agent did not see whole: piped, redirected, silenced. */
const OUTPUT_HIDDEN = /\||>|-interaction[= ]*batchmode|\s-(?:silent|quiet)\b/;
/** A screen capture (tmux-style harness): earlier lines may have scrolled away. */
const SCREEN = /Terminal (?:Output|Screen):/;

/**
 * What the agent saw of its last build: "warnings" when the output shows box warnings,
 * "clean" when it shows the whole finished run without any (TeX prints each warning on
 * the terminal too), undefined when it cannot tell (hidden, cut, a screen capture).
 */
function lastBuildSeen(
  build: string,
  attempt: Attempt,
  call: Event,
): "warnings" | "clean" | undefined {
  const out = outputOf(attempt, call);
  if (BOX_WARNING.test(out)) return "warnings";
  const raw = resultOf(attempt, call)?.output ?? call.output ?? "";
  const first = segments(build)[0] ?? build;
  if (OUTPUT_HIDDEN.test(first) || SCREEN.test(raw) || !RUN_DONE.test(out)) return undefined;
  return "clean";
}

/** LaTeX build with a no-warnings contract, but the final log never searched after the last build. */
export const latexLogUnchecked: Detector = {
  id: "latex.final-log-unchecked",
  taskRole: "the task sets a LaTeX build contract",
  description:
    "LaTeX built under a no-overfull-hbox contract, final log never searched after the last build",
  family: "latex-final-log",
  detect(attempt) {
    if (!LATEX_TASK.test(attempt.taskText)) return [];
    const calls = toolCalls(attempt);
    const lastBuild = calls.filter((c) => LATEX_BUILD.test(commandOf(c) ?? "")).at(-1);
    if (!lastBuild) return [];
    const buildCmd = commandOf(lastBuild) ?? "";
    const after = buildCmd.slice(buildCmd.search(LATEX_BUILD));
    if (
      segments(after)
        .slice(1)
        .some((seg) => LOG_CHECK.test(seg) && /\.log\b/.test(seg))
    )
      return [];
    // the rest of the command read whole: a program's code holds `;` that split no shell segment
    const buildSeg = segments(after)[0] ?? after;
    const plain = stripHeredocs(after);
    const rest = plain.slice(plain.indexOf(buildSeg) + buildSeg.length);
    if (/^\s*(?:&&|;|\|\||\n)/.test(rest) && LOG_CHECK.test(rest) && /\.log\b/.test(rest))
      return [];
    // the build's output piped into a search for box warnings is searched as the log is
    if (
      stages(buildSeg)
        .slice(1)
        .some((st) => OUTPUT_SEARCH.test(st))
    )
      return [];
    if (calls.some((c) => c.index > lastBuild.index && LOG_CHECK.test(commandOf(c) ?? "")))
      return [];
    // the build's own output counts as the search when it shows the whole run
    const seen = lastBuildSeen(after, attempt, lastBuild);
    if (seen === "clean") return [];
    return [
      {
        eventIndices: [lastBuild.index],
        reason:
          seen === "warnings"
            ? "the last LaTeX build printed box warnings, and the attempt stopped after it"
            : "final LaTeX log not searched after the last build",
      },
    ];
  },
};
