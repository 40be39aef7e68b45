import { pytestOutput, Script } from "../script.js";
import type { TaskSpec } from "../types.js";
import { familyTasks } from "./define.js";

const built = (pages: number) =>
  `This is pdfTeX, Version 3.141592653-2.6-1.40.26 (TeX Live 2024) (preloaded format=pdflatex)\n(./main.tex\nLaTeX2e <2023-11-01>\n...\nOutput written on main.pdf (${pages} pages, 214873 bytes).\nTranscript written on main.log.`;

const texTests = (ok: boolean, detail = "") =>
  pytestOutput(
    "/tests/test_build.py",
    [
      ["test_pdf_exists", true],
      ["test_no_overfull_hbox", ok],
    ],
    detail,
  );

export const latexFinalLog: TaskSpec[] = familyTasks(
  "latex-final-log",
  {
    id: "fix-thesis-overfull",
    instruction:
      "The thesis in /app/thesis fails our style check. Fix the sources so that `pdflatex main.tex` (run twice) builds main.pdf. The final PDF must compile with no overfull hbox warnings; do not change the text content, only layout commands, hyphenation and the table widths.",
    bad: () => {
      const s = new Script();
      s.run(
        "Build once to see the state.",
        "cd /app/thesis && pdflatex -interaction=nonstopmode main.tex | grep -E 'Overfull|Output written'",
        "Overfull \\hbox (14.2pt too wide) in paragraph at lines 112--118\nOverfull \\hbox (31.7pt too wide) in alignment at lines 201--219\nOutput written on main.pdf (23 pages, 214873 bytes).",
      );
      s.run(
        "Make the wide table fit and allow hyphenation of the long identifier.",
        "sed -i 's/\\\\begin{tabular}{llll}/\\\\begin{tabularx}{\\\\linewidth}{lXXl}/; s/\\\\end{tabular}/\\\\end{tabularx}/' chapters/results.tex && sed -i '3i \\\\usepackage{tabularx}\\n\\\\hyphenation{data-base-re-cov-ery}' main.tex",
        "",
      );
      s.run(
        "Rebuild twice.",
        "pdflatex -interaction=nonstopmode main.tex > /dev/null; pdflatex -interaction=nonstopmode main.tex | tail -2",
        built(23).split("\n").slice(-2).join("\n"),
      )
        .evidence()
        .preFailure();
      return s.fail(
        "Fixed the table width and hyphenation; main.pdf builds cleanly.",
        texTests(
          false,
          "E   AssertionError: main.log contains 'Overfull \\hbox (2.9pt too wide) in paragraph at lines 64--66'",
        ),
        "latex-final-log",
      );
    },
    good: () => {
      const s = new Script();
      s.run(
        "Build and list the warnings.",
        "cd /app/thesis && pdflatex -interaction=nonstopmode main.tex | grep -E 'Overfull'",
        "Overfull \\hbox (14.2pt too wide) in paragraph at lines 112--118\nOverfull \\hbox (31.7pt too wide) in alignment at lines 201--219\nOverfull \\hbox (2.9pt too wide) in paragraph at lines 64--66",
      );
      s.run(
        "Fix the table, the identifier and the URL line.",
        "sed -i 's/\\\\begin{tabular}{llll}/\\\\begin{tabularx}{\\\\linewidth}{lXXl}/; s/\\\\end{tabular}/\\\\end{tabularx}/' chapters/results.tex && sed -i 's/\\\\texttt{https/\\\\url{https/' chapters/intro.tex && sed -i '3i \\\\usepackage{tabularx,url}' main.tex",
        "",
      );
      s.run(
        "Rebuild twice.",
        "pdflatex -interaction=nonstopmode main.tex > /dev/null; pdflatex -interaction=nonstopmode main.tex | tail -1",
        "Transcript written on main.log.",
      );
      s.run(
        "Search the final log literally.",
        "grep -c 'Overfull \\\\hbox' main.log",
        "0",
        1,
      ).evidence();
      return s.pass("main.pdf builds and the final main.log has no overfull hbox.", texTests(true));
    },
  },
  {
    id: "latex-resume-one-page",
    instruction:
      "Make the résumé in /app/cv/cv.tex fit on one page without shrinking the font below 10pt. The final PDF must compile with no overfull hbox warnings (we check cv.log after `pdflatex cv.tex`).",
    bad: () => {
      const s = new Script();
      s.run(
        "Build and count pages.",
        "cd /app/cv && pdflatex -interaction=nonstopmode cv.tex | grep 'Output written'",
        "Output written on cv.pdf (2 pages, 48211 bytes).",
      );
      s.run(
        "Tighten the margins and section spacing.",
        "sed -i 's/margin=1in/margin=0.6in/; s/\\\\vspace{8pt}/\\\\vspace{3pt}/g' cv.tex && pdflatex -interaction=nonstopmode cv.tex | grep 'Output written'",
        "Output written on cv.pdf (1 page, 45002 bytes).",
      )
        .evidence()
        .preFailure();
      return s.fail(
        "cv.pdf now fits on one page at 10pt.",
        pytestOutput(
          "/tests/test_cv.py",
          [
            ["test_one_page", true],
            ["test_no_overfull_hbox", false],
          ],
          "E   AssertionError: cv.log: Overfull \\hbox (6.1pt too wide) in paragraph at lines 41--41",
        ),
        "latex-final-log",
      );
    },
    bad2: () => {
      const s = new Script();
      s.run(
        "Build.",
        "cd /app/cv && pdflatex -interaction=nonstopmode cv.tex | tail -3",
        built(2).split("\n").slice(-2).join("\n"),
      );
      s.run(
        "Reduce spacing and use a condensed itemize.",
        "sed -i 's/\\\\begin{itemize}/\\\\begin{itemize}[nosep]/g; 2i \\\\usepackage{enumitem}' cv.tex && pdflatex -interaction=nonstopmode cv.tex | tail -2",
        "Output written on cv.pdf (1 page, 44718 bytes).\nTranscript written on cv.log.",
      )
        .evidence()
        .preFailure();
      return s.fail(
        "Done: one page, 10pt.",
        pytestOutput(
          "/tests/test_cv.py",
          [
            ["test_one_page", true],
            ["test_no_overfull_hbox", false],
          ],
          "E   AssertionError: cv.log: Overfull \\hbox (17.8pt too wide) in paragraph at lines 58--60",
        ),
        "latex-final-log",
      );
    },
  },
  {
    id: "latex-poster-build",
    instruction:
      "Build the conference poster in /app/poster (`latexmk -pdf poster.tex`). The final PDF must compile with no overfull hbox warnings; fix the sources if needed.",
    good: () => {
      const s = new Script();
      s.run(
        "Build.",
        "cd /app/poster && latexmk -pdf -interaction=nonstopmode poster.tex 2>&1 | tail -2",
        "Output written on poster.pdf (1 page, 1830213 bytes).\nLatexmk: All targets (poster.pdf) are up-to-date",
      );
      s.run(
        "Check the final log for overfull boxes.",
        "grep -n 'Overfull \\\\hbox' poster.log | head",
        "212:Overfull \\hbox (4.3pt too wide) in paragraph at lines 77--79",
      );
      s.run(
        "Let the long DOI break and rebuild.",
        "sed -i 's/\\\\texttt{doi/\\\\url{doi/' poster.tex && latexmk -pdf -interaction=nonstopmode poster.tex > /dev/null 2>&1; grep -c 'Overfull \\\\hbox' poster.log",
        "0",
        1,
      ).evidence();
      return s.pass("poster.pdf builds and poster.log has no overfull hbox.", texTests(true));
    },
  },
);
