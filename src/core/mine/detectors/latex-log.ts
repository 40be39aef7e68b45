import { commandOf, segments, toolCalls } from "./shell.js";
import type { Detector } from "./types.js";

const LATEX_BUILD = /\b(pdflatex|xelatex|lualatex|latexmk|tectonic)\b/;
const LATEX_TASK = /\b(overfull|underfull|hbox|latex warnings?|no warnings)\b/i;
const LOG_CHECK = /\b(grep|rg|cat|tail|less|head|awk)\b[^|;&]*(\.log\b|overfull|hbox)/i;

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
    if (calls.some((c) => c.index > lastBuild.index && LOG_CHECK.test(commandOf(c) ?? "")))
      return [];
    return [
      {
        eventIndices: [lastBuild.index],
        reason: "final LaTeX log not searched after the last build",
      },
    ];
  },
};
