import { pytestOutput, Script } from "../script.js";
import type { TaskSpec } from "../types.js";
import { familyTasks } from "./define.js";

const setTests = (ok: boolean, detail = "") =>
  pytestOutput(
    "/tests/test_answers.py",
    [
      ["test_answers_valid", true],
      ["test_all_answers_present", ok],
    ],
    detail,
  );

export const multiAnswerEnumeration: TaskSpec[] = familyTasks(
  "multi-answer-enumeration",
  {
    id: "find-valid-pins",
    instruction:
      "The lock firmware in /app/lock.py accepts a 4-digit PIN when `check(pin)` returns True. Find the PINs it accepts without modifying the file. Print all valid answers, one per line, to /app/answers.txt.",
    bad: () => {
      const s = new Script();
      s.run(
        "Read the checker.",
        "sed -n 1,30p /app/lock.py",
        "def check(pin: str) -> bool:\n    d = [int(c) for c in pin]\n    return len(pin) == 4 and sum(d) == 21 and d[0] * d[3] == 12 and d[1] > d[2] and d[1] % 2 == 0",
      );
      s.run(
        "Search for a PIN.",
        "python3 -c \"from lock import check\nfor i in range(10000):\n    p=f'{i:04d}'\n    if check(p): print(p); break\"",
        "2856",
      ).evidence();
      s.run(
        "Write the answer.",
        "echo 2856 > /app/answers.txt && cat /app/answers.txt",
        "2856",
      ).preFailure();
      return s.fail(
        "The valid PIN is 2856 (written to /app/answers.txt).",
        setTests(false, "E   AssertionError: missing answers: {'3864', '4863', '6852'}"),
        "multi-answer-enumeration",
      );
    },
    good: () => {
      const s = new Script();
      s.run(
        "Read the checker.",
        "cat /app/lock.py",
        "def check(pin: str) -> bool:\n    d = [int(c) for c in pin]\n    return len(pin) == 4 and sum(d) == 21 and d[0] * d[3] == 12 and d[1] > d[2] and d[1] % 2 == 0",
      );
      s.run(
        "Enumerate every PIN, test each, deduplicate and write all.",
        "cd /app && python3 -c \"from lock import check\nprint('\\n'.join(sorted({f'{i:04d}' for i in range(10000) if check(f'{i:04d}')})))\" | tee /app/answers.txt",
        "2856\n3864\n4863\n6852",
      ).evidence();
      s.run(
        "Verify every written line passes.",
        "cd /app && python3 -c \"from lock import check; ls=open('answers.txt').read().split(); print(len(ls), all(map(check, ls)))\"",
        "4 True",
      );
      return s.pass(
        "Found all 4 accepted PINs; /app/answers.txt lists them one per line.",
        setTests(true),
      );
    },
  },
  {
    id: "word-ladder-all-shortest",
    instruction:
      "Using the word list /app/words.txt, find the shortest word ladders from COLD to WARM (change one letter per step, every intermediate must be in the list). Print all valid answers, one per line, as comma-separated ladders in /app/ladders.txt.",
    bad: () => {
      const s = new Script();
      s.run(
        "Run a BFS.",
        "python3 /app/ladder.py COLD WARM",
        "COLD,CORD,CARD,WARD,WARM",
      ).evidence();
      s.run(
        "Write it.",
        "python3 /app/ladder.py COLD WARM > /app/ladders.txt && cat /app/ladders.txt",
        "COLD,CORD,CARD,WARD,WARM",
      ).preFailure();
      return s.fail(
        "Wrote the shortest ladder (4 steps).",
        setTests(false, "E   AssertionError: expected 3 ladders, found 1"),
        "multi-answer-enumeration",
      );
    },
    bad2: () => {
      const s = new Script();
      s.run(
        "BFS with parent tracking.",
        "python3 /app/ladder.py --all COLD WARM | head",
        "COLD,CORD,CARD,WARD,WARM\nCOLD,CORD,WORD,WARD,WARM",
      ).evidence();
      s.run(
        "Keep the first result as the answer.",
        "python3 /app/ladder.py --all COLD WARM | head -1 > /app/ladders.txt; cat /app/ladders.txt",
        "COLD,CORD,CARD,WARD,WARM",
      ).preFailure();
      return s.fail(
        "The shortest ladder is in /app/ladders.txt.",
        setTests(false, "E   AssertionError: expected 3 ladders, found 1"),
        "multi-answer-enumeration",
      );
    },
  },
  {
    id: "sudoku-all-completions",
    instruction:
      "The 4x4 sudoku in /app/puzzle.txt has more than one completion. Print all valid answers, one per line (each completed grid as a 16-character string), to /app/solutions.txt.",
    good: () => {
      const s = new Script();
      s.run(
        "Enumerate all completions with backtracking.",
        "python3 /app/solve_all.py /app/puzzle.txt | sort -u | tee /app/solutions.txt | wc -l",
        "2",
      ).evidence();
      s.run(
        "Validate each line.",
        "python3 /app/check.py /app/solutions.txt",
        "2 valid, 0 invalid, 0 duplicates",
      );
      return s.pass("Both completions are listed in /app/solutions.txt.", setTests(true));
    },
  },
);
