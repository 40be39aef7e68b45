import { describe, expect, it } from "vitest";
import { runDetectors } from "../../../src/core/mine/detectors/index.js";
import { REPLACE_TASK_RE } from "../../../src/core/mine/detectors/no-diff-after-replace.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { attempt, type Step } from "./bash-attempt.js";

/** Whether the detector `id` fires on `a`. */
const fires = (a: Attempt, id: string) =>
  runDetectors(a, { siblings: [] }).some((h) => h.detectorId === id);

describe("a closed replacement map: exactness that governs the content", () => {
  const refactor: Step[] = [
    { cmd: "sed -i 's/os.system(cmd)/subprocess.run(cmd, shell=True)/' src/client.py", out: "" },
    { cmd: "python -m pytest -q tests", out: "5 passed" },
    { say: "Done." },
  ];

  it("is not an ordinary refactor whose sentence says byte-level, unchanged or exactly elsewhere", () => {
    for (const task of [
      "Replace the regex tokenizer in /app/tok.py with a byte-level tokenizer.",
      "Replace the hard-coded timeout in src/client.py with a config option, so that the default stays unchanged.",
      "Please replace the call to `os.system` with `subprocess.run` so the command line is passed exactly as given.",
      "Replace the loop with a vectorized version giving exactly the same results.",
    ]) {
      expect(REPLACE_TASK_RE.test(task), task).toBe(false);
      expect(fires(attempt(task, refactor), "exact.no-diff-after-replace"), task).toBe(false);
    }
  });

  it("is one whose exactness governs the rest of the file or the replacement value", () => {
    for (const task of [
      "In every file, replace each deprecated key with its new name exactly as listed below, change nothing else (comments, quoting, key order and blank lines must stay byte-for-byte the same):",
      "Replace the header in a.txt and leave everything else byte-for-byte unchanged.",
      "Replace the copyright year in every file; all other lines must stay unchanged.",
      "Replace every tab with exactly four spaces.",
      "Replace `a.b` with `c.d` exactly.",
    ]) {
      expect(REPLACE_TASK_RE.test(task), task).toBe(true);
      expect(fires(attempt(task, refactor), "exact.no-diff-after-replace"), task).toBe(true);
    }
  });
});

describe("a rewrite after an exact edit: the files a keeping sentence names", () => {
  const edited = (task: string, file: string): Attempt =>
    attempt(task, [
      { cmd: `cat ${file}`, out: "def r(n):\n    return list(range(n-1))\n" },
      { cmd: `sed -i 's/range(n-1)/range(n)/' ${file}`, out: "" },
      { cmd: `cat > ${file} <<'EOF'\ndef r(n):\n    return list(range(n))\nEOF`, out: "" },
      { cmd: "python -m pytest -q /app/tests", out: "3 passed" },
      { say: "Fixed." },
    ]);

  it("is no loss on a file the sentence does not name (the tests kept, the source rewritten)", () => {
    const task = "Fix the off-by-one bug in /app/src/range.py. Leave the test files untouched.";
    expect(fires(edited(task, "/app/src/range.py"), "exact.rewrite-after-edit")).toBe(false);
    const named = "Fix the bug in /app/src/range.py. Leave /app/src/util.py untouched.";
    expect(fires(edited(named, "/app/src/range.py"), "exact.rewrite-after-edit")).toBe(false);
  });

  it("is a loss on a file the sentence names, or on any file where it names none", () => {
    const tests = "Fix the off-by-one bug in /app/src/range.py. Leave the test files untouched.";
    expect(fires(edited(tests, "/app/tests/test_range.py"), "exact.rewrite-after-edit")).toBe(true);
    const named = "Fix the bug. Do not change anything else in /app/src/range.py.";
    expect(fires(edited(named, "/app/src/range.py"), "exact.rewrite-after-edit")).toBe(true);
    const all = "Fix the off-by-one bug in /app/src/range.py and keep everything else unchanged.";
    expect(fires(edited(all, "/app/src/range.py"), "exact.rewrite-after-edit")).toBe(true);
    // tests named for another reason, or a path cited as a reference, narrow nothing
    for (const keep of [
      "Fix the off-by-one bug. Keep everything else unchanged so the tests still pass.",
      "Fix the off-by-one bug. Keep everything else unchanged, as described in /app/README.md.",
    ])
      expect(fires(edited(keep, "/app/src/range.py"), "exact.rewrite-after-edit"), keep).toBe(true);
  });
});

describe("evidence mutated before a copy: the store the mutation acts on", () => {
  const lost =
    "A commit was lost from the repository in /app/repo. Recover it and write its message to /app/msg.txt.";
  const recovered = (copy: string, reset = "cd /tmp/r && git reset --hard abc1234"): Attempt =>
    attempt(lost, [
      { cmd: copy, out: "" },
      { cmd: "cd /tmp/r && git fsck --lost-found", out: "dangling commit abc1234" },
      { cmd: reset, out: "HEAD is now at abc1234 secret" },
      { cmd: "git log -1 --format=%s > /app/msg.txt && cat /app/msg.txt", out: "secret" },
      { say: "Done." },
    ]);

  it("is no loss when the mutation acts on a whole-folder copy or a clone", () => {
    for (const copy of [
      "cp -r /app/repo /tmp/r",
      "git clone /app/repo /tmp/r",
      "rsync -a /app/repo/ /tmp/r",
    ])
      expect(fires(recovered(copy), "evidence.mutated-before-copy"), copy).toBe(false);
  });

  it("is a loss when the mutation acts on the original, with no copy of it", () => {
    for (const reset of [
      "cd /app/repo && git reset --hard abc1234",
      "git -C /app/repo reset --hard abc1234",
    ]) {
      expect(fires(recovered("ls /app/repo", reset), "evidence.mutated-before-copy"), reset).toBe(
        true,
      );
      // a copy of another folder keeps nothing of the repository, nor does one copied into
      // the repository's own folder or the folder above it
      for (const other of [
        "cp -r /app/src /tmp/r",
        "cp -r /opt/tools /app/",
        "cd /app/repo && cp -r /tmp/scripts .",
      ])
        expect(fires(recovered(other, reset), "evidence.mutated-before-copy"), other).toBe(true);
    }
  });

  it("reads a SQLite URI opened read-only (mode=ro, immutable=1) as no read-write open", () => {
    const task =
      "The SQLite database /app/data.db is corrupted. Recover as many rows as you can into /app/rows.csv.";
    const opened = (uri: string): Attempt =>
      attempt(task, [
        {
          cmd: `python3 -c "import sqlite3; c=sqlite3.connect('${uri}', uri=True); print(c.execute('select count(*) from t').fetchall())"`,
          out: "[(10,)]",
        },
        {
          cmd: "python3 /app/dump.py > /app/rows.csv && wc -l /app/rows.csv",
          out: "10 /app/rows.csv",
        },
      ]);
    expect(fires(opened("file:/app/data.db?mode=ro"), "evidence.mutated-before-copy")).toBe(false);
    expect(fires(opened("file:/app/data.db?immutable=1"), "evidence.mutated-before-copy")).toBe(
      false,
    );
    expect(fires(opened("file:/app/data.db?mode=rw"), "evidence.mutated-before-copy")).toBe(true);
  });
});

describe("a single answer on an all-answers task: the lines the answer file holds", () => {
  const task =
    "Find all the legal moves that deliver checkmate and write them to /app/moves.txt, one per line.";
  const wrote = (write: string, after: Step[] = []): Attempt =>
    attempt(task, [
      { cmd: "python3 /app/solve.py", out: "Qh7#\nRf8#" },
      { cmd: write, out: "" },
      ...after,
      { say: "Wrote the mates." },
    ]);

  it("counts the line breaks of echo -e and $'…', and a later wc -l or cat of the file", () => {
    expect(fires(wrote('echo -e "Qh7#\\nRf8#" > /app/moves.txt'), "answers.single-emitted")).toBe(
      false,
    );
    expect(fires(wrote("echo $'Qh7#\\nRf8#' > /app/moves.txt"), "answers.single-emitted")).toBe(
      false,
    );
    const counted = [{ cmd: "wc -l /app/moves.txt", out: "2 /app/moves.txt" }];
    expect(
      fires(wrote('echo -e "Qh7#\\nRf8#" > /app/moves.txt', counted), "answers.single-emitted"),
    ).toBe(false);
    const shown = [{ cmd: "cat /app/moves.txt", out: "Qh7#\nRf8#\n" }];
    expect(fires(wrote("echo Qh7# > /app/moves.txt", shown), "answers.single-emitted")).toBe(false);
  });

  it("still reads one echoed answer, or a later read showing one line, as a single answer", () => {
    expect(fires(wrote('echo "Qh7#" > /app/moves.txt'), "answers.single-emitted")).toBe(true);
    expect(fires(wrote('echo -e "Qh7#" > /app/moves.txt'), "answers.single-emitted")).toBe(true);
    const one = [{ cmd: "cat /app/moves.txt", out: "Qh7#\n" }];
    expect(fires(wrote("echo Qh7# > /app/moves.txt", one), "answers.single-emitted")).toBe(true);
  });
});

describe("a LaTeX build under a no-overfull contract: the searches after it", () => {
  const task = "Fix main.tex so that it compiles with pdflatex with no overfull hbox warnings.";
  const built = (check: Step): Attempt =>
    attempt(task, [
      { cmd: "sed -i 's/verylongword/very long word/' main.tex", out: "" },
      check,
      { say: "No overfull boxes." },
    ]);

  it("counts the build's output piped into a search, any reader of the log, and tectonic's end", () => {
    for (const check of [
      { cmd: "pdflatex -interaction=nonstopmode main.tex | grep -i overfull", out: "", exit: 1 },
      {
        cmd: "pdflatex -interaction=nonstopmode main.tex > /dev/null; sed -n '/Overfull/p' main.log",
        out: "",
      },
      {
        cmd: "pdflatex main.tex > /dev/null && python3 -c \"import re; print(re.findall('Overfull', open('main.log').read()))\"",
        out: "[]",
      },
      {
        cmd: "tectonic main.tex",
        out: "note: Running TeX ...\nnote: Writing `main.pdf` (40.1 KiB)",
      },
      { cmd: "latexmk -pdf main.tex", out: "Latexmk: All targets (main.pdf) are up-to-date" },
    ])
      expect(fires(built(check), "latex.final-log-unchecked"), check.cmd).toBe(false);
  });

  it("a program that logs or writes a log of its own searched no TeX log", () => {
    const hidden = "pdflatex -interaction=nonstopmode main.tex > /dev/null 2>&1";
    for (const after of [
      `node -e "console.log(require('fs').statSync('main.pdf').size)"`,
      `python3 -c "import math; print(math.log(2))"`,
      "python3 check_pdf.py > check.log",
    ])
      expect(
        fires(built({ cmd: `${hidden}; ${after}`, out: "40123" }), "latex.final-log-unchecked"),
        after,
      ).toBe(true);
  });

  it("still fires on a hidden build never searched, or one whose output shows box warnings", () => {
    for (const check of [
      { cmd: "pdflatex -interaction=nonstopmode main.tex > /dev/null", out: "" },
      { cmd: "pdflatex main.tex | tail -2", out: "Output written on main.pdf (1 page)." },
      {
        cmd: "tectonic main.tex",
        out: "warning: main.tex:3: Overfull \\hbox (12.0pt too wide)\nnote: Writing `main.pdf` (40.1 KiB)",
      },
      { cmd: "pdflatex main.tex > /dev/null; sed -i 's/a/b/' main.tex", out: "" },
    ])
      expect(fires(built(check), "latex.final-log-unchecked"), check.cmd).toBe(true);
  });
});

describe("a re-implemented binary: a program that runs both and compares their outputs", () => {
  const task = "Re-implement the provided compiled tool /app/bin/wc-orig as /app/mywc.py.";
  const write = {
    cmd: "cat > /app/mywc.py <<'EOF'\nimport sys\nprint(len(sys.stdin.read().split()))\nEOF",
    out: "",
  };
  const program =
    "import subprocess as s\na=s.run(['/app/bin/wc-orig'],input=b'a b',capture_output=True).stdout\nb=s.run(['python3','/app/mywc.py'],input=b'a b',capture_output=True).stdout\nprint(a==b)";

  it("counts python -c, a heredoc program, or a comparing script written and then run", () => {
    for (const steps of [
      [{ cmd: `python3 -c "${program.replaceAll("\n", "; ")}"`, out: "True" }],
      [{ cmd: `python3 - <<'EOF'\n${program}\nEOF`, out: "True" }],
      [
        { cmd: `cat > /tmp/same.py <<'EOF'\n${program}\nEOF`, out: "" },
        { cmd: "python3 /tmp/same.py", out: "True" },
      ],
    ])
      expect(
        fires(attempt(task, [write, ...steps, { say: "Identical." }]), "binary.never-compared"),
      ).toBe(false);
  });

  it("still fires when the comparing script is only written, or the program runs one side", () => {
    const written = [{ cmd: `cat > /tmp/same.py <<'EOF'\n${program}\nEOF`, out: "" }];
    expect(
      fires(attempt(task, [write, ...written, { say: "Done." }]), "binary.never-compared"),
    ).toBe(true);
    const one = [
      {
        cmd: "python3 -c \"import subprocess as s; print(s.run(['python3','/app/mywc.py'],input=b'a b').returncode == 0)\"",
        out: "True",
      },
    ];
    expect(fires(attempt(task, [write, ...one, { say: "Done." }]), "binary.never-compared")).toBe(
      true,
    );
  });
});
