import { describe, expect, it } from "vitest";
import { runDetectors } from "../../../src/core/mine/detectors/index.js";
import { verifierMissing } from "../../../src/core/mine/detectors/paths.js";
import { heuristicLabel } from "../../../src/core/mine/heuristic.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { type TraceStep, traceOf } from "../draft/template-policy.js";

/** uv's words when the program it was asked to run is not in its working folder. */
const SPAWN =
  "error: Failed to spawn: `solve.py`\n  Caused by: No such file or directory (os error 2)";
const WRITE = (path: string): string => `cat > ${path} <<'EOF'\nprint(42)\nEOF`;

function graded(steps: readonly TraceStep[], verifier = SPAWN, task = "Write solve.py."): Attempt {
  return { ...traceOf(task, "t", steps), verifierOutput: `test_answer FAILED\n${verifier}\n` };
}
const wrongPath = (a: Attempt) =>
  runDetectors(a, { siblings: [] }).find((h) => h.detectorId === "output.wrong-path");
/** The wrong-path hit of a copy written to /app/sub/solve.py, then `cmd`. */
const afterWrite = (cmd: string) =>
  wrongPath(
    graded([
      { cmd: WRITE("/app/sub/solve.py"), exit: 0 },
      { cmd, exit: 0 },
    ]),
  );

describe("a program the grader could not start, left in another folder", () => {
  it("names the wrong path, quoting the grader's own line", () => {
    const a = graded([{ cmd: WRITE("/app/sub/solve.py"), exit: 0 }]);
    expect(wrongPath(a)?.reason).toBe(
      "the verifier could not start solve.py where it ran it; the agent's solve.py is at /app/sub/solve.py",
    );
    const l = heuristicLabel(a, runDetectors(a, { siblings: [] }));
    expect(l.mechanismId).toBe("artifact-wrong-path");
    expect(l.evidence.find((e) => e.from === "verifier")?.excerpt).toMatch(
      /^error: Failed to spawn/,
    );
  });

  it("resolves a relative write under the command's only cd", () => {
    expect(
      wrongPath(graded([{ cmd: `cd /app/sub && ${WRITE("solve.py")}`, exit: 0 }]))?.reason,
    ).toMatch(/is at \/app\/sub\/solve\.py$/);
    // another cd later in the command: where the file landed is unknown
    expect(
      wrongPath(graded([{ cmd: `cd /app/sub && cd .. && ${WRITE("solve.py")}`, exit: 0 }])),
    ).toBeUndefined();
    expect(wrongPath(graded([{ cmd: WRITE("./solve.py"), exit: 0 }]))).toBeUndefined();
  });

  it("takes no write that failed", () => {
    expect(wrongPath(graded([{ cmd: WRITE("/app/sub/solve.py"), exit: 1 }]))).toBeUndefined();
  });

  it("says nothing of a copy in a folder the task names", () => {
    const task = "Write the program to /app/solve.py and read /app/input.txt.";
    expect(
      wrongPath(graded([{ cmd: WRITE("/app/solve.py"), exit: 0 }], SPAWN, task)),
    ).toBeUndefined();
    // the same copy, with a task that names no folder: the grader ran elsewhere
    expect(wrongPath(graded([{ cmd: WRITE("/app/solve.py"), exit: 0 }]))).toBeDefined();
  });

  it("says nothing once the copy, or a folder of it, was removed or moved", () => {
    const later = [
      "rm -rf /app/sub",
      "mv /app/sub /app/pkg",
      "git clean -fdx",
      "find /app -name '*.pyc' -delete",
      "rm -f /app/sub/*.py",
      "ls | xargs rm solve.py",
    ];
    for (const cmd of later) expect(afterWrite(cmd), cmd).toBeUndefined();
    // a copy moved on is where it was moved to
    expect(
      wrongPath(
        graded([
          { cmd: WRITE("/app/sub/solve.py"), exit: 0 },
          { cmd: "mv /app/sub/solve.py /app/bin/solve.py", exit: 0 },
        ]),
      )?.reason,
    ).toMatch(/is at \/app\/bin\/solve\.py$/);
    // a copy written again after a removal is there again
    expect(
      wrongPath(
        graded([
          { cmd: WRITE("/app/sub/solve.py"), exit: 0 },
          { cmd: "rm /app/sub/solve.py", exit: 0 },
          { cmd: WRITE("/app/sub/solve.py"), exit: 0 },
        ]),
      ),
    ).toBeDefined();
    // removing something else leaves the copy where it was
    for (const cmd of ["rm -f /app/other/*.py", "rm -f /app/sub/=*", "rm -rf /app/sub/build"])
      expect(afterWrite(cmd), cmd).toBeDefined();
  });

  it("reads only words that say the program itself could not start", () => {
    const at = (verifier: string) =>
      graded([{ cmd: WRITE("/app/sub/solve.py"), exit: 0 }], verifier);
    // Python up to 3.8 prints the name as given
    expect(
      wrongPath(at("python3: can't open file 'solve.py': [Errno 2] No such file or directory")),
    ).toBeDefined();
    // a file that is there but may not be read is no missing program
    expect(
      wrongPath(at("python3: can't open file 'solve.py': [Errno 13] Permission denied")),
    ).toBeUndefined();
    // uv looks a name without `.py` up or executes it: a missing shebang interpreter reads the same
    const sh =
      "error: Failed to spawn: `run.sh`\n  Caused by: No such file or directory (os error 2)";
    expect(verifierMissing(at(sh)).facts[0]?.ran).toBeUndefined();
    // a test that only finds the file missing says nothing of where the program was run
    expect(wrongPath(at("AssertionError: solve.py does not exist"))).toBeUndefined();
  });

  it("prefers the line that says the program could not start, and keeps it past the cap", () => {
    const a = graded([], `solve.py does not exist\n${SPAWN}`);
    const f = verifierMissing(a).facts.find((x) => x.path === "solve.py");
    expect(f?.ran).toBe(true);
    expect(f?.excerpt).toMatch(/^error: Failed to spawn/);
    // a failing test's message says it missing; the output says it could not start
    const both: Attempt = {
      ...a,
      verifierTests: [{ name: "test_cli", status: "failed", message: "solve.py does not exist" }],
    };
    const g = verifierMissing(both).facts.find((x) => x.path === "solve.py");
    expect(g?.ran).toBe(true);
    expect(g?.test).toBeUndefined();
    const many = Array.from({ length: 45 }, (_, i) => `f${i}.txt does not exist`).join("\n");
    expect(verifierMissing(graded([], `${many}\n${SPAWN}`)).facts.some((x) => x.ran)).toBe(true);
  });
});
