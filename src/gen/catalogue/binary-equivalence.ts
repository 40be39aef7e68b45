import { pytestOutput, Script } from "../script.js";
import type { TaskSpec } from "../types.js";
import { familyTasks } from "./define.js";

const eqTests = (ok: boolean[], detail = "") =>
  pytestOutput(
    "/tests/test_equivalence.py",
    [
      ["test_sample_inputs", ok[0] ?? false],
      ["test_unicode_input", ok[1] ?? false],
      ["test_empty_and_ties", ok[2] ?? false],
    ],
    detail,
  );

export const binaryEquivalence: TaskSpec[] = familyTasks(
  "binary-equivalence",
  {
    id: "reimplement-wordfreq",
    instruction:
      "/app/bin/wordfreq is a stripped binary that prints word frequencies for a text file. Its source is lost. Re-implement the binary in Python as /app/wordfreq.py so that `python3 /app/wordfreq.py FILE` gives identical output to `/app/bin/wordfreq FILE` for any input file, byte for byte.",
    bad: () => {
      const s = new Script();
      s.run(
        "See what the binary prints.",
        "/app/bin/wordfreq /app/samples/a.txt | head -5",
        "the 42\nof 17\nand 17\nto 12\na 9",
      );
      s.run(
        "Write the re-implementation.",
        "cat > /app/wordfreq.py <<'EOF'\nimport re, sys\nfrom collections import Counter\nwords = re.findall(r\"[a-z']+\", open(sys.argv[1]).read().lower())\nfor w, n in Counter(words).most_common():\n    print(w, n)\nEOF",
        "",
      );
      s.run(
        "Try it on the sample.",
        "python3 /app/wordfreq.py /app/samples/a.txt | head -5",
        "the 42\nof 17\nand 17\nto 12\na 9",
      )
        .evidence()
        .preFailure();
      return s.fail(
        "wordfreq.py reproduces the binary's output.",
        eqTests(
          [true, false, false],
          "E   AssertionError: outputs differ at line 3: b'and 17' != b'of 17' (ties are sorted alphabetically)",
        ),
        "binary-equivalence",
      );
    },
    good: () => {
      const s = new Script();
      s.run(
        "Probe the binary's behaviour on ties and case.",
        "printf 'b a B a c\\n' > /tmp/t1 && /app/bin/wordfreq /tmp/t1",
        "a 2\nb 2\nc 1",
      );
      s.run(
        "Write the re-implementation with alphabetical tie-breaking.",
        "cat > /app/wordfreq.py <<'EOF'\nimport re, sys\nfrom collections import Counter\nwords = re.findall(r\"[a-z']+\", open(sys.argv[1], encoding='utf-8', errors='replace').read().lower())\nfor w, n in sorted(Counter(words).items(), key=lambda kv: (-kv[1], kv[0])):\n    print(w, n)\nEOF",
        "",
      );
      s.run(
        "Compare byte for byte over diverse inputs.",
        'for f in /app/samples/*.txt /tmp/t1 /dev/null; do cmp <(/app/bin/wordfreq $f) <(python3 /app/wordfreq.py $f) && echo "same $f"; done',
        "same /app/samples/a.txt\nsame /app/samples/b.txt\nsame /app/samples/unicode.txt\nsame /tmp/t1\nsame /dev/null",
      ).evidence();
      return s.pass(
        "wordfreq.py matches the binary byte for byte on every sample, ties and empty input included.",
        eqTests([true, true, true]),
      );
    },
  },
  {
    id: "reimplement-checksum-tool",
    instruction:
      "Re-implement the binary /usr/local/bin/cksum16 (a custom 16-bit checksum tool) in C as /app/cksum16.c. Compiled with `gcc -O2 -o /app/cksum16 /app/cksum16.c`, it must produce identical output to the original for any input, including stdin and multiple files.",
    bad: () => {
      const s = new Script();
      s.run(
        "Observe the tool.",
        "echo hello | cksum16; cksum16 /etc/hostname",
        "8a31 6 -\n1f0c 13 /etc/hostname",
      );
      s.run(
        "Write a Fletcher-16 implementation.",
        'cat > /app/cksum16.c <<\'EOF\'\n#include <stdio.h>\nint main(int c, char **v) {\n  FILE *f = c > 1 ? fopen(v[1], "rb") : stdin;\n  unsigned a = 0, b = 0, n = 0; int ch;\n  while ((ch = fgetc(f)) != EOF) { a = (a + ch) % 255; b = (b + a) % 255; n++; }\n  printf("%04x %u %s\\n", (b << 8) | a, n, c > 1 ? v[1] : "-");\n}\nEOF\ngcc -O2 -o /app/cksum16 /app/cksum16.c',
        "",
      );
      s.run("Run it.", "echo hello | /app/cksum16", "8a31 6 -").evidence().preFailure();
      return s.fail(
        "cksum16.c compiles and produces the same checksum.",
        eqTests(
          [true, false, false],
          "E   AssertionError: multiple files: expected 2 lines, got 1",
        ),
        "binary-equivalence",
      );
    },
    bad2: () => {
      const s = new Script();
      s.run("Observe.", "printf abc | cksum16", "2627 3 -");
      s.run(
        "Implement and build.",
        'cat > /app/cksum16.c <<\'EOF\'\n#include <stdio.h>\nstatic void sum(FILE *f, const char *name) {\n  unsigned a = 0, b = 0, n = 0; int ch;\n  while ((ch = fgetc(f)) != EOF) { a = (a + ch) % 255; b = (b + a) % 255; n++; }\n  printf("%04x %u %s\\n", (b << 8) | a, n, name);\n}\nint main(int c, char **v) {\n  if (c == 1) sum(stdin, "-");\n  for (int i = 1; i < c; i++) { FILE *f = fopen(v[i], "rb"); sum(f, v[i]); fclose(f); }\n}\nEOF\ngcc -O2 -o /app/cksum16 /app/cksum16.c && printf abc | /app/cksum16',
        "2627 3 -",
      )
        .evidence()
        .preFailure();
      return s.fail(
        "The re-implementation matches.",
        eqTests(
          [true, true, false],
          "E   AssertionError: missing file: original prints 'cksum16: nofile: No such file or directory' and exits 1; re-implementation segfaults",
        ),
        "binary-equivalence",
      );
    },
  },
  {
    id: "reimplement-line-counter",
    instruction:
      "Re-implement the binary /app/bin/lc (counts lines, non-blank lines and comment lines of source files) as a Python script /app/lc.py. It must produce identical output to the binary for every file in /app/corpus and for files given on stdin.",
    good: () => {
      const s = new Script();
      s.run(
        "See the output format.",
        "/app/bin/lc /app/corpus/main.c",
        "main.c: 120 lines, 98 non-blank, 14 comments",
      );
      s.run(
        "Write the script.",
        "cat > /app/lc.py <<'EOF'\nimport os, sys\nfor p in sys.argv[1:] or ['-']:\n    t = sys.stdin.read() if p == '-' else open(p).read()\n    ls = t.splitlines()\n    nb = [l for l in ls if l.strip()]\n    cm = [l for l in nb if l.strip().startswith(('//', '#', '/*', '*'))]\n    print(f\"{os.path.basename(p)}: {len(ls)} lines, {len(nb)} non-blank, {len(cm)} comments\")\nEOF",
        "",
      );
      s.run(
        "Compare with cmp on every corpus file.",
        "fails=0; for f in /app/corpus/*; do cmp -s <(/app/bin/lc $f) <(python3 /app/lc.py $f) || { echo DIFF $f; fails=1; }; done; echo fails=$fails",
        "fails=0",
      ).evidence();
      return s.pass("lc.py matches the binary on the whole corpus.", eqTests([true, true, true]));
    },
  },
);
