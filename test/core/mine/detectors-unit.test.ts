import { describe, expect, it } from "vitest";
import { writtenPaths as ingestWrites, shellCommand } from "../../../src/core/ingest/shell.js";
import { runDetectors } from "../../../src/core/mine/detectors/index.js";
import { neverRan } from "../../../src/core/mine/detectors/never-ran.js";
import { REPLACE_TASK_RE } from "../../../src/core/mine/detectors/no-diff-after-replace.js";
import { requiredOutputs } from "../../../src/core/mine/detectors/output-never-written.js";
import { taskSaysExists } from "../../../src/core/mine/detectors/overwrote-existing.js";
import {
  cdTarget,
  dirOf,
  notFoundCalls,
  resolveIn,
  samePath,
  seenExisting,
} from "../../../src/core/mine/detectors/paths.js";
import {
  callFailed,
  cleanOutput,
  isCheck,
  isVerification,
  paneSection,
  runsWrittenProgram,
  writtenPaths,
} from "../../../src/core/mine/detectors/shell.js";
import { importedBy } from "../../../src/core/mine/detectors/stray-artifact.js";
import { countedFields } from "../../../src/core/mine/detectors/token-accounting.js";
import { taskReliesOn } from "../../../src/core/mine/faults/environment.js";
import { heuristicLabel } from "../../../src/core/mine/heuristic.js";
import { attemptFacts } from "../../../src/core/mine/sibling-facts.js";
import { faultOf } from "../../../src/core/mine/triage.js";
import { Attempt, type Event } from "../../../src/core/model/attempt.js";
import { attempt, type Step } from "./bash-attempt.js";

const ids = (a: Attempt) =>
  runDetectors(a, { siblings: [] }).map((h) => `${h.detectorId}@${h.eventIndices.join(",")}`);
/** Whether a detector whose hit id starts with `prefix` fires on `a`. */
const fires = (a: Attempt, prefix: string) => ids(a).some((x) => x.startsWith(prefix));
/** One Bash call, for the readers of a single command. */
const ev = (command: string): Event => ({ index: 1, kind: "tool_call", tool: "Bash", command });

describe("generic detectors", () => {
  it("loop: the same failing command three times", () => {
    const a = attempt("Fix the build.", [
      { cmd: "make", out: "error: missing header", exit: 2 },
      { cmd: "make ", out: "error: missing header", exit: 2 },
      { cmd: "make", out: "error: missing header", exit: 2 },
    ]);
    expect(ids(a)).toContain("loop.repeated-failure@1,3,5");
    const twice = attempt("Fix the build.", [
      { cmd: "make", out: "error", exit: 2 },
      { cmd: "make", out: "error", exit: 2 },
    ]);
    expect(ids(twice).some((x) => x.startsWith("loop."))).toBe(false);
  });

  it("loop: a failing write got past by a later write of the same file is no mechanism", () => {
    const heredoc = "cat <<'EOF' > /app/check.py\nimport ssl\nEOF";
    const fail = {
      cmd: heredoc,
      out: "bash: -c: line 3: syntax error: unexpected end of file",
      exit: 2,
    };
    const loop = [fail, fail, fail, fail, fail];
    const mechanismOf = (a: Attempt) =>
      runDetectors(a, { siblings: [] }).find((h) => h.detectorId === "loop.repeated-failure")
        ?.mechanism;
    // never got past: the loop is the mechanism
    expect(mechanismOf(attempt("Write /app/check.py.", loop))).toBe("repeated-tool-error");
    // an echo of the same file succeeded after it: struggle, not what lost the run
    const past = attempt("Write /app/check.py.", [
      ...loop,
      { cmd: 'echo "import ssl" > /app/check.py', out: "" },
    ]);
    expect(mechanismOf(past)).toBeUndefined();
    expect(fires(past, "loop.repeated-failure")).toBe(true);
    // a later write of another file does not get past this one
    const other = attempt("Write /app/check.py.", [
      ...loop,
      { cmd: "echo x > /app/other.py", out: "" },
    ]);
    expect(mechanismOf(other)).toBe("repeated-tool-error");
  });

  it("loop: calls that never ran repeat whatever their arguments; assignments are no new approach", () => {
    const mech = (a: Attempt) =>
      runDetectors(a, { siblings: [] }).find((h) => h.detectorId === "loop.repeated-failure");
    // prose run as commands: every input differs, the shell could not parse any of them
    const prose = [1, 2, 3, 4, 5].map((i) => ({
      cmd: `DISCUSSION step ${"x".repeat(i)} we should look at the file (it's there)`,
      out: `/bin/bash: line ${100 + i}: unexpected EOF while looking for matching \`''`,
      exit: 2,
    }));
    expect(mech(attempt("Fix the bug.", prose))?.mechanism).toBe("repeated-tool-error");
    // different commands failing with one error that ran: new attempts, no loop
    const tries = ["ls a", "cat b", "head c", "wc d", "stat e"].map((cmd) => ({
      cmd,
      out: "error: permission denied",
      exit: 1,
    }));
    expect(mech(attempt("Fix the bug.", tries))).toBeUndefined();
    // the same build under other JAVA_HOMEs: an assignment before it is no new approach
    const homes = ["/a/jdk", "/b/jdk", "/c/jdk", "/d/jdk", "/e/jdk"].map((h) => ({
      cmd: `export JAVA_HOME=${h} && ./mvnw test`,
      out: `Error: JAVA_HOME is not defined correctly.\n  We cannot execute ${h}/bin/java`,
      exit: 1,
    }));
    const build = mech(attempt("Fix the bug.", homes));
    expect(build?.mechanism).toBe("repeated-tool-error");
    expect(build?.reason).toContain("./mvnw test");
  });

  it("loop: the same look returning the same result is a loop only without a write between", () => {
    const look = { cmd: "cd /app/repo && git log --all -p | grep secret || true", out: "" };
    const ranOut = { outcome: "timeout" as const };
    const hit = (a: Attempt) =>
      runDetectors(a, { siblings: [] }).find((h) => h.detectorId === "loop.no-progress");
    const loop = attempt("Recover the secret.", [look, look, look, look, look], ranOut);
    expect(hit(loop)?.mechanism).toBe("repeated-tool-error");
    // the run stopped on its own: a sign of struggle, not what used up the budget
    expect(hit(attempt("Recover the secret.", [look, look, look, look, look]))?.mechanism).toBe(
      undefined,
    );
    expect(hit(attempt("Recover the secret.", [look, look, look, look]))).toBeUndefined();
    // an edit between each run looks at something new: the edit-run cycle of a fix
    const edit = { cmd: "sed -i 's/a/b/' /app/x.py", out: "" };
    const cycle = attempt(
      "Fix x.py.",
      [1, 2, 3, 4, 5].flatMap(() => [edit, { cmd: "python /app/x.py", out: "still wrong" }]),
      ranOut,
    );
    expect(hit(cycle)).toBeUndefined();
    // a poll waits through the same answer on purpose
    const poll = { cmd: "sleep 30 && cat /app/status", out: "running" };
    expect(
      hit(attempt("Train the model.", [poll, poll, poll, poll, poll], ranOut)),
    ).toBeUndefined();
    // a deadline is the symptom of the loop the budget ran out in
    const label = heuristicLabel(loop, runDetectors(loop, { siblings: [] }));
    expect(label.mechanismId).toBe("repeated-tool-error");
  });

  it("redacts secrets quoted in detector reasons", () => {
    const cmd =
      'curl -sf -H "Authorization: Bearer sk-proj-abcdefghijklmnop1234567890" https://api.example.com/v1/x';
    const a = attempt(
      "Call the API.",
      [1, 2, 3].map(() => ({ cmd, out: "curl: (22) 401", exit: 22 })),
    );
    const loop = runDetectors(a, { siblings: [] }).find(
      (h) => h.detectorId === "loop.repeated-failure",
    );
    expect(loop?.reason).toContain("[REDACTED:openai-key]");
    expect(loop?.reason).not.toContain("sk-proj-abcdefghijklmnop");
  });

  it("git fsck only reads a repository: no evidence mutated; a filesystem fsck or git gc does", () => {
    const task = "A commit was lost from the repository in /app/repo. Recover it.";
    const mutated = (cmd: string) =>
      ids(attempt(task, [{ cmd, out: "" }])).some((x) => x.startsWith("evidence.mutated"));
    expect(mutated("cd /app/repo && git fsck --no-reflog --lost-found")).toBe(false);
    expect(mutated("cd /app/repo && git gc --prune=now")).toBe(true);
    expect(mutated("fsck -y /dev/loop0 && ls /app/repo")).toBe(true);
  });

  it("a store has an evidence role only when the role is said of it, not of something else", () => {
    // an agent harness's own instructions: investigate the issue; the setup cleans a checkout
    const task =
      "Fix this GitHub issue.\n\n## Setup\n```bash\ncd /code/x && git fetch origin && git checkout -B fix 0a1b2c && git clean -fdx\n```\n\n" +
      "## Approach\n1. **Explore first** — use subagents to investigate the issue, trace the relevant code paths, and identify the root cause.\n" +
      "2. Write a failing test, then make it pass. Keep the commit small and describe it in the log.";
    const setup = { cmd: "cd /code/x && git checkout -B fix 0a1b2c && git clean -fdx", out: "" };
    expect(fires(attempt(task, [setup]), "evidence.mutated")).toBe(false);
    const lost = "The database at /srv/app.db is corrupted. Recover every row you can.";
    expect(
      fires(attempt(lost, [{ cmd: "sqlite3 /srv/app.db .recover", out: "" }]), "evidence.mutated"),
    ).toBe(true); // hard-wrapped text: the role and its store on two lines of one sentence
    const wrapped =
      "Someone deleted rows yesterday by mistake. Please recover, from the\ndatabase file /srv/app.db, every row you can into /srv/rows.csv.";
    expect(
      fires(
        attempt(wrapped, [{ cmd: "sqlite3 /srv/app.db .recover", out: "" }]),
        "evidence.mutated",
      ),
    ).toBe(true);
    // nor across a blank line, with CRLF line ends as an issue tracker writes them
    const crlf =
      "Investigate why the report page is slow.\r\n\r\nThen add an index to the database /srv/app.db.";
    expect(
      fires(
        attempt(crlf, [{ cmd: "sqlite3 /srv/app.db 'CREATE INDEX i ON t(c)'", out: "" }]),
        "evidence.mutated",
      ),
    ).toBe(false);
    // short CRLF lines after a role word with no store near it: the window stays linear
    const rows = `Please recover${"\r\nx".repeat(40)} it.`;
    expect(
      fires(attempt(rows, [{ cmd: "sqlite3 /srv/app.db .dump", out: "" }]), "evidence.mutated"),
    ).toBe(false);
    // but not into the next list item
    const listed = "1. Investigate the slow page.\n2. Add an index to the database /srv/app.db.";
    expect(
      fires(
        attempt(listed, [{ cmd: "sqlite3 /srv/app.db 'CREATE INDEX i ON t(c)'", out: "" }]),
        "evidence.mutated",
      ),
    ).toBe(false);
  });

  it("a cleanup the task asks for destroys evidence only before the recovered part is written", () => {
    const task =
      "A secret was committed to the repository in /app/repo and removed by rewriting history. " +
      "Recover the secret and write it to /app/secret.txt, then clean up the secret in that " +
      "repo so that it cannot be found anywhere.";
    const mutated = (steps: { cmd: string; out: string }[]) =>
      ids(attempt(task, steps)).some((x) => x.startsWith("evidence.mutated"));
    const purge = {
      cmd: "cd /app/repo && git reflog expire --expire=now --all && git gc --prune=now",
      out: "",
    };
    const write = { cmd: "echo 'secret[x]' > /app/secret.txt", out: "" };
    // recovered first, then the cleanup the task asked for: no loss
    expect(mutated([write, purge])).toBe(false);
    // the cleanup first: the history it had to recover from is gone
    expect(mutated([purge, write])).toBe(true);
    // a task that asks for no cleanup: any purge before a copy is a loss, as before
    const recoverOnly =
      "A commit was lost from the repository in /app/repo. Recover it to /app/out.txt.";
    expect(ids(attempt(recoverOnly, [write, purge])).some((x) => x.startsWith("evidence."))).toBe(
      true,
    );
  });

  it("stop while the last check failed, and stop without any check after the last write", () => {
    const failing = attempt("Make the tests pass.", [
      { cmd: "sed -i 's/a/b/' app.py", out: "" },
      { cmd: "pytest -q", out: "1 failed, 3 passed", exit: 1 },
    ]);
    expect(ids(failing)).toContain("stop.last-check-failed@3");
    expect(ids(failing).some((x) => x.startsWith("stop.no-check"))).toBe(false);
    const unchecked = attempt("Write the report to /app/report.md.", [
      { cmd: "ls /app", out: "data.csv" },
      { cmd: "cat > /app/report.md <<'EOF'\n# Report\ncat is not a check here\nEOF", out: "" },
    ]);
    expect(ids(unchecked)).toContain("stop.no-check-after-write@3");
  });

  it("a code tool's cell that runs the work is a check; one that only writes is not", () => {
    const task = "Write the report to /app/report.md.";
    const written = { cmd: "cat > /app/report.md <<'EOF'\n# Report\nEOF", out: "" };
    const cell = (code: string): Attempt => {
      const a = attempt(task, [{ cmd: "ls /app", out: "data.csv" }, written]);
      const n = a.events.length;
      return {
        ...a,
        events: [
          ...a.events,
          {
            index: n,
            kind: "tool_call",
            tool: "execute_ipython_cell",
            input: JSON.stringify({ code }),
            callId: "py",
          },
          { index: n + 1, kind: "tool_result", output: "# Report", callId: "py" },
        ],
      };
    };
    const checked = cell("print(open('/app/report.md').read())");
    expect(ids(checked).some((x) => x.startsWith("stop.no-check"))).toBe(false);
    // a cell that only writes another file checks nothing
    const wrote = cell("open('/app/notes.txt', 'w').write('done')");
    expect(ids(wrote)).toContain("stop.no-check-after-write@3");
  });

  it("running the program the attempt wrote and installed is a check of it", () => {
    const install = [
      { cmd: "cat > /app/diff-guard <<'EOF'\n#!/usr/bin/env python3\nprint('[]')\nEOF", out: "" },
      { cmd: "chmod +x /app/diff-guard && cp /app/diff-guard /usr/local/bin/diff-guard", out: "" },
      { cmd: "mkdir -p /app/t1 && cp /app/a.yaml /app/t1/a.yaml", out: "" },
    ];
    const ran = attempt("Write diff-guard as a CLI installed at /usr/local/bin/diff-guard.", [
      ...install,
      { cmd: "diff-guard /app/t1 /app/t2", out: "[]" },
    ]);
    expect(ids(ran).some((x) => x.startsWith("stop.no-check"))).toBe(false);
    const byPath = attempt("Write the tool.", [
      ...install,
      { cmd: "LANG=C /app/diff-guard /app/t1 /app/t2", out: "[]" },
    ]);
    expect(ids(byPath).some((x) => x.startsWith("stop.no-check"))).toBe(false);
    // a program the attempt did not write proves nothing about its own files
    const other = attempt("Write the tool.", [...install, { cmd: "apiserve /app/t1", out: "" }]);
    expect(ids(other)).toContain("stop.no-check-after-write@5");
  });

  it("a condition that came out false is an answer, not a repeated tool error", () => {
    // an agent framework checking for its memory folder after each turn
    const guard = { cmd: "test -w /memory && mkdir -p /memory/sessions", out: "", exit: 1 };
    const task = "Fix the failing parser test.";
    expect(fires(attempt(task, [guard, guard, guard, guard, guard]), "loop.repeated-failure")).toBe(
      false,
    );
    // a bare condition is a check whose answer may matter; a failing guarded step still fails
    const bare = { cmd: "test -f /app/out.txt", out: "", exit: 1 };
    expect(fires(attempt(task, [bare, bare, bare]), "loop.repeated-failure")).toBe(true);
    // a guarded step whose output went to a file may have failed silently
    const logged = {
      cmd: "[ -x ./run_tests.sh ] && ./run_tests.sh > /tmp/test.log 2>&1",
      out: "",
      exit: 1,
    };
    expect(fires(attempt(task, [logged, logged, logged]), "loop.repeated-failure")).toBe(true);
    const guarded = { cmd: "[ -d build ] && make", out: "make: *** [all] Error 2", exit: 1 };
    expect(fires(attempt(task, [guarded, guarded, guarded]), "loop.repeated-failure")).toBe(true);
  });

  it("a service is what the task keeps running; a job the command line reaps is no launch", () => {
    const reaped = {
      cmd: "pip3 install -q 'scikit-learn==1.2.2' 2>&1 | tail -5 &\nsleep 90 && kill %1 2>/dev/null; wait",
      out: "",
    };
    const tests =
      "Do NOT stop after the first partial fix — keep running the failing tests until every one passes.";
    expect(fires(attempt(tests, [reaped]), "service.attached-launch")).toBe(false);
    // waiting for the port, or on the job itself, reaps nothing
    const waited = {
      cmd: "nohup ./bin/myapi --port 8080 &\n./wait-for-it.sh localhost:8080",
      out: "",
    };
    expect(
      fires(
        attempt("Start the API server and keep it running.", [waited]),
        "service.attached-launch",
      ),
    ).toBe(true);
    const service = "Start the API on port 8000 in the background and keep it running.";
    expect(fires(attempt(service, [reaped]), "service.attached-launch")).toBe(false);
    expect(
      fires(attempt(service, [{ cmd: "python3 app.py &", out: "" }]), "service.attached-launch"),
    ).toBe(true);
    expect(
      fires(attempt(tests, [{ cmd: "python3 app.py &", out: "" }]), "service.attached-launch"),
    ).toBe(false);
    // a thing kept running is a service, whatever follows; bare "keep running until" is a loop
    const until = "Start the exporter and keep it running until the grader has read /metrics.";
    expect(
      fires(attempt(until, [{ cmd: "python3 app.py &", out: "" }]), "service.attached-launch"),
    ).toBe(true);
    const loop = "Keep running until the tests pass, then keep the tests running in CI.";
    expect(
      fires(attempt(loop, [{ cmd: "python3 app.py &", out: "" }]), "service.attached-launch"),
    ).toBe(false);
  });

  it("a tool the task relies on that ran in another call is no missing tool", () => {
    const task = "Fix the bug, then run `pytest` on the changed module.";
    const lastUse = {
      cmd: "pytest -q tests/test_x.py",
      out: "sh: line 1: pytest: command not found",
      exit: 127,
    };
    expect(faultOf(attempt(task, [lastUse]))?.code).toBe("tool-unavailable");
    const asModule = {
      cmd: "python -m pytest tests/test_x.py 2>&1 | tail -3",
      out: "3 passed in 0.2s",
    };
    expect(faultOf(attempt(task, [asModule, lastUse]))?.code).toBeUndefined();
    const noPath = {
      cmd: "/usr/local/bin/pytest -q",
      out: "bash: /usr/local/bin/pytest: No such file or directory",
      exit: 127,
    };
    expect(faultOf(attempt(task, [noPath, lastUse]))?.code).toBe("tool-unavailable");
    const noModule = {
      cmd: "python -m pytest tests",
      out: "/usr/bin/python: No module named pytest",
      exit: 1,
    };
    expect(faultOf(attempt(task, [noModule, lastUse]))?.code).toBe("tool-unavailable");
    // an earlier call whose output names the tool missing after another program: not run there
    const both = {
      cmd: "ruff check .; pytest -q",
      out: "sh: 1: ruff: not found\nsh: 1: pytest: not found",
      exit: 127,
    };
    expect(faultOf(attempt(task, [both, lastUse]))?.code).toBe("tool-unavailable");
  });

  it("the agent giving up in words, and a timeout exception", () => {
    const a = attempt(
      "Decode the archive.",
      [
        { cmd: "file blob.xpk", out: "data" },
        { say: "I was unable to complete the decoding: the format is unknown." },
      ],
      { outcome: "timeout", exception: { type: "AgentTimeoutError" } },
    );
    const hits = runDetectors(a, { siblings: [] });
    expect(hits.find((h) => h.detectorId === "agent.gave-up")?.reason).toBe(
      'agent said: "I was unable to complete"',
    );
    expect(hits.find((h) => h.detectorId === "run.timeout")?.eventIndices).toEqual([4]);
  });

  it("a passing sibling is capability evidence; the attempt itself is not its own sibling", () => {
    const a = attempt("t", [{ cmd: "ls", out: "x" }]);
    const sib = { ...a, id: "unit-2", outcome: "pass" as const };
    expect(
      runDetectors(a, { siblings: [sib] }).find(
        (h) => h.detectorId === "capability.passing-sibling",
      )?.reason,
    ).toBe("1 passing sibling attempt(s) (same model) — unknown model: unit-2");
    expect(
      runDetectors(a, { siblings: [{ ...a, outcome: "pass" }] }).some(
        (h) => h.detectorId === "capability.passing-sibling",
      ),
    ).toBe(false);
  });
});

describe("shell reading helpers", () => {
  it("finds required outputs after a writing verb, not inputs", () => {
    expect(
      requiredOutputs("Read /app/data.csv and write the summary to /app/summary.json."),
    ).toEqual(["/app/summary.json"]);
    expect(requiredOutputs('Save it as "robot_cafe.png" in the current directory.')).toEqual([
      "robot_cafe.png",
    ]);
    expect(requiredOutputs("Fix the bug in util.py.")).toEqual([]);
    // what the write reads is no output: the destination after it is
    expect(
      requiredOutputs("Write the number of lines of /app/input.txt to /app/count.txt."),
    ).toEqual(["/app/count.txt"]);
    expect(requiredOutputs("Save every address from mail.log into emails.txt")).toEqual([
      "emails.txt",
    ]);
    // the name goes on: the output is data.sql.gz, not data.sql
    expect(requiredOutputs("The output must be named ` data.sql.gz`.")).toEqual([]);
  });

  it("reads written paths from redirections, tee, cp and sed -i (with flags before the script)", () => {
    expect(writtenPaths(ev("echo 1 > /app/a.txt && cat /app/a.txt"))).toEqual(["/app/a.txt"]);
    expect(
      writtenPaths(ev("sed -i -E 's/x/y/; s/p/q/' a.yaml b.yaml && grep -c x a.yaml")),
    ).toEqual(["a.yaml", "b.yaml"]);
    expect(writtenPaths(ev("ls 2>&1 | tee out.log"))).toEqual(["out.log"]);
    expect(writtenPaths(ev("cat notes.txt"))).toEqual([]);
  });

  it("a heredoc's opener line still redirects (`cat <<EOF > f`); its body does not", () => {
    expect(writtenPaths(ev("cat <<EOF > /app/a.py\nx = 1 > 0\nEOF"))).toEqual(["/app/a.py"]);
    expect(writtenPaths(ev("cat <<'EOF' > a.md\nsee > b.md\nEOF\necho hi >> c.txt"))).toEqual([
      "a.md",
      "c.txt",
    ]);
    expect(writtenPaths(ev("cat <<EOF | python3 - > out.txt\nprint(1)\nEOF"))).toEqual(["out.txt"]);
  });

  it("running a file the attempt wrote through a launcher is a check of it", () => {
    const wrote = new Set(["/app/t.ts"]);
    expect(runsWrittenProgram(ev("cd /app && npx tsx t.ts"), wrote)).toBe(true);
    expect(runsWrittenProgram(ev("uv run python /app/t.ts"), wrote)).toBe(true);
    expect(runsWrittenProgram(ev("npx tsc --noEmit"), wrote)).toBe(false);
    expect(runsWrittenProgram(ev("cat /app/t.ts"), wrote)).toBe(false);
  });

  it("an editor tool's view sub-command reads; its other sub-commands write", () => {
    const view = { command: "view", path: "/repo/src/parse.py" };
    expect(ingestWrites("str_replace_editor", view)).toBeUndefined();
    expect(ingestWrites("str_replace_based_edit_tool", view)).toBeUndefined();
    expect(ingestWrites("str_replace_editor", { ...view, command: "str_replace" })).toEqual([
      "/repo/src/parse.py",
    ]);
    expect(ingestWrites("str_replace_editor", { ...view, command: "create" })).toEqual([
      "/repo/src/parse.py",
    ]);
  });

  it("reads shells of other harnesses (OpenHands, Cursor) as shells", () => {
    expect(shellCommand("execute_bash", { command: "pytest -q" })).toBe("pytest -q");
    expect(shellCommand("run_terminal_cmd", { command: "ls" })).toBe("ls");
    expect(shellCommand("read_file", { command: "ls" })).toBeUndefined();
  });

  it("a search that finds nothing fails only when it looked for what should be there", () => {
    const last = (cmd: string, exit: number) => {
      const a = attempt("Fix the build.", [{ cmd, out: "", exit }]);
      const call = a.events.find((e) => e.kind === "tool_call");
      return callFailed(a, call as Event);
    };
    // looking for trouble in a build's output and finding none
    expect(last("make 2>&1 | grep -i error", 1)).toBe(false);
    expect(last("grep -n Overfull main.log", 1)).toBe(false);
    // looking for the expected answer and not finding it
    expect(last("curl -s localhost:8080/health | grep OK", 1)).toBe(true);
    expect(last("make 2>&1 | grep -i error", 2)).toBe(true);
  });

  it("'not found' counts when the call failed or its output opens with it, not in content", () => {
    const nf = (out: string, exit?: number) =>
      notFoundCalls(
        attempt("Fix it.", [
          { cmd: "cat /app/x.py", out, ...(exit !== undefined ? { exit } : {}) },
        ]),
      ).length;
    expect(nf("cat: /app/x.py: No such file or directory", 1)).toBe(1);
    // a file whose code mentions a missing object, printed by a call that worked
    expect(nf("def get(pk):\n    raise DoesNotExist('object does not exist')\n", 0)).toBe(0);
    // a search tool's snippets that quote such code
    const search = Attempt.parse({
      ...attempt("Fix it.", []),
      events: [
        { index: 0, kind: "prompt", role: "user", input: "Fix it." },
        {
          index: 1,
          kind: "tool_call",
          tool: "search_code",
          input: '{"code_str":"x.features"}',
          callId: "s",
        },
        {
          index: 2,
          kind: "tool_result",
          callId: "s",
          output: "Found 2 snippets.\n<code>self.fail('table does not exist')</code>",
        },
      ],
    });
    expect(notFoundCalls(search)).toEqual([]);
    // a status the harness reported as 0 (panes, wrappers): the first line says so
    expect(nf("ls: cannot access '/data': No such file or directory\n")).toBe(1);
  });

  it("an input the task says already exists, replaced unread, is an overwrite", () => {
    const task =
      "The file that already exists at `/home/user/list.txt` contains a messy list. Clean it into /home/user/out.txt.";
    expect(taskSaysExists(task, "/home/user/list.txt")).toBe(true);
    expect(taskSaysExists(task, "/home/user/out.txt")).toBe(false);
    expect(taskSaysExists("Create /app/a.txt. The existing tests pass.", "/app/a.txt")).toBe(false);
    // where a thing is kept now says the file is there; where a deliverable should go does not
    const located = "The authoritative ID is located in the configuration file at `/etc/app.conf`.";
    expect(taskSaysExists(located, "/etc/app.conf")).toBe(true);
    expect(
      taskSaysExists("The report should be located at /app/report.txt.", "/app/report.txt"),
    ).toBe(false);
    expect(taskSaysExists("Your script will be located at /app/run.sh.", "/app/run.sh")).toBe(
      false,
    );
    const a = attempt(task, [
      { cmd: "cat > /home/user/list.txt << 'EOF'\nIMG_1.JPG\nEOF", out: "" },
      { cmd: "sort -u /home/user/list.txt > /home/user/out.txt", out: "" },
    ]);
    const hit = runDetectors(a, { siblings: [] }).find(
      (h) => h.detectorId === "safety.overwrote-existing",
    );
    expect(hit?.eventIndices).toEqual([1]);
    expect(hit?.taskRole).toMatch(/task says \/home\/user\/list\.txt exists/);
    // read first, then rewritten: a requested edit, not a blind overwrite
    const read = attempt(task, [
      { cmd: "cat /home/user/list.txt", out: "IMG_1.JPG" },
      { cmd: "cat > /home/user/list.txt << 'EOF'\nimg_1.jpg\nEOF", out: "" },
    ]);
    expect(fires(read, "safety.overwrote-existing")).toBe(false);
  });

  it("an existence word about another file does not make the output existing", () => {
    const task =
      "Using the provided dataset in /app/data.csv, compute the total per region and write the result to /app/totals.csv.";
    expect(taskSaysExists(task, "/app/data.csv")).toBe(true);
    expect(taskSaysExists(task, "/app/totals.csv")).toBe(false);
    // a verb that makes a file stands between the phrase and the name
    expect(taskSaysExists("Given the existing schema, create /app/db.sql.", "/app/db.sql")).toBe(
      false,
    );
    const a = attempt(task, [
      { cmd: "head -5 /app/data.csv", out: "region,amount\nnorth,3\nsouth,4" },
      { cmd: "cat > /app/totals.csv <<'EOF'\nregion,total\nnorth,3\nsouth,4\nEOF", out: "" },
      { cmd: "cat /app/totals.csv", out: "region,total\nnorth,3\nsouth,4" },
    ]);
    expect(fires(a, "safety.overwrote-existing")).toBe(false);
    // near miss: the provided input itself replaced unread is still an overwrite
    const blind = attempt(task, [
      { cmd: "cat > /app/data.csv <<'EOF'\nregion,amount\nEOF", out: "" },
    ]);
    expect(fires(blind, "safety.overwrote-existing")).toBe(true);
  });

  it("a relative written path may be the named file; a database written by its SQL is written", () => {
    expect(samePath("/home/user/pipe/prep.py", "prep.py")).toBe(true);
    expect(samePath("/home/user/pipe/prep.py", "./pipe/prep.py")).toBe(true);
    expect(samePath("/home/user/pipe/prep.py", "/tmp/prep.py")).toBe(false);
    expect(samePath("/home/user/pipe/prep.py", "../prep.py")).toBe(false);
    // the verifier wants the file at an absolute path; the agent wrote it by a relative name
    const rel = attempt(
      "Create /home/user/pipe/prep.py.",
      [{ cmd: "cd /home/user/pipe && echo 'print(1)' > prep.py", out: "" }],
      { verifierOutput: "AssertionError: /home/user/pipe/prep.py does not exist" },
    );
    expect(fires(rel, "output.wrong-path")).toBe(false);
    const db = attempt(
      "Insert the release into /var/lib/db/app.db and write it to /var/lib/db/app.db.",
      [
        {
          cmd: "python3 -c \"import sqlite3\nc = sqlite3.connect('/var/lib/db/app.db')\nc.execute('INSERT INTO t VALUES (1)')\nc.commit()\"",
          out: "",
        },
      ],
    );
    expect(fires(db, "output.never-written")).toBe(false);
  });

  it("a closed replacement task is about replacing, not a JSON object mapping names", () => {
    expect(REPLACE_TASK_RE.test("A JSON object mapping the exact filename to its size.")).toBe(
      false,
    );
    expect(REPLACE_TASK_RE.test("Replace every tab with exactly four spaces.")).toBe(true);
  });

  it("a remote sandbox that failed is the environment's fault, as a container is", () => {
    const steps = [{ cmd: "ls /app", out: "src" }];
    const sandbox = attempt("Fix it.", steps, {
      exception: { type: "DaytonaError", message: "Failed to create session: [Errno 49]" },
    });
    expect(faultOf(sandbox)?.reason).toBe("provider_fault");
    const timeout = attempt("Fix it.", steps, {
      exception: { type: "AgentTimeoutError", message: "Agent execution timed out" },
    });
    expect(faultOf(timeout)?.reason).not.toBe("provider_fault");
  });

  it("a pane shared by a batch: each command owns the lines after its echoed prompt", () => {
    expect(taskReliesOn("Write the file report.txt.", "file")).toBe(false);
    expect(taskReliesOn("Inspect it using file and report the type.", "file")).toBe(true);
    const pane =
      "New Terminal Output:\n\nroot@c1:/home/user# cat /etc/app.conf 2>/dev/null || echo NONE\nNONE\n" +
      "root@c1:/home/user# chmod +x run.py\nchmod: cannot access 'run.py': No such file or directory\nroot@c1:/home/user# ";
    expect(paneSection(pane, "chmod +x run.py")).toContain("cannot access");
    expect(paneSection(pane, "cat /etc/app.conf 2>/dev/null || echo NONE")).not.toContain(
      "cannot access",
    );
    // the first command of the batch gets the whole pane as its result: it found its file
    const a = Attempt.parse({
      ...attempt("Read /etc/app.conf.", []),
      events: [
        { index: 0, kind: "prompt", role: "user", input: "Read /etc/app.conf." },
        {
          index: 1,
          kind: "tool_call",
          tool: "bash_command",
          command: "cat /etc/app.conf 2>/dev/null || echo NONE",
          callId: "call_1_1",
        },
        {
          index: 2,
          kind: "tool_call",
          tool: "bash_command",
          command: "chmod +x run.py",
          callId: "call_1_2",
        },
        // Terminus-2's ATIF gives the batch's one pane to its first call
        { index: 3, kind: "tool_result", output: pane, callId: "call_1_1" },
      ],
    });
    // …and each later call of the batch reads its own part of that pane
    expect(notFoundCalls(a).map((c) => c.index)).toEqual([2]);
    expect(callFailed(a, a.events[1] as Event)).toBe(false);
    expect(callFailed(a, a.events[2] as Event)).toBe(true);
  });

  it("a write that also checks counts as a check; heredoc bodies are not commands", () => {
    expect(isCheck(ev("echo 3 > /app/n.txt && cat /app/n.txt"))).toBe(true);
    expect(isCheck(ev("cat > /app/x.py <<'EOF'\nimport sys\nprint(open('f').read())\nEOF"))).toBe(
      false,
    );
    expect(isCheck(ev("check-jsonschema --schemafile s.json r.json"))).toBe(true);
    // SWE-agent's file viewer: moving through the open file looks at it
    for (const tool of ["goto", "scroll_down", "search_file", "find_file"])
      expect(isCheck({ index: 1, kind: "tool_call", tool, input: "42" }), tool).toBe(true);
    expect(isCheck({ index: 1, kind: "tool_call", tool: "edit", input: "1:2" })).toBe(false);
  });

  it("strips terminal chrome from tmux-style outputs", () => {
    expect(
      cleanOutput("New Terminal Output:\n\nroot@98d4:/app# ls\nfile.txt\nroot@98d4:/app# "),
    ).toBe("file.txt");
    expect(cleanOutput("plain output")).toBe("plain output");
  });

  it("counts the fields a token task names in its field sentences", () => {
    expect(
      countedFields("Each row has `question`, `context` and `answer` fields and all three count."),
    ).toEqual(["question", "context", "answer"]);
    expect(countedFields("Count the `content` field (it is the only text field).")).toEqual([
      "content",
    ]);
  });
});

describe("triage fault classification (Harbor exception types)", () => {
  const withException = (type: string) =>
    attempt("t", [{ cmd: "ls", out: "x" }], { outcome: "error", exception: { type } });
  it.each([
    ["VerifierTimeoutError", "verifier_fault"],
    ["RewardFileNotFoundError", "verifier_fault"],
    ["EnvironmentStartTimeoutError", "provider_fault"],
    ["AgentSetupTimeoutError", "provider_fault"],
    ["LLMProviderError", "provider_fault"],
  ])("%s → %s", (type, reason) => {
    expect(faultOf(withException(type))?.reason).toBe(reason);
  });
  it("an agent timeout is not a fault: it stays in scope for mining", () => {
    expect(faultOf(withException("AgentTimeoutError"))).toBeUndefined();
  });
  it("an empty trace and a verifier marker are excluded with their reason", () => {
    const empty = Attempt.parse({ ...attempt("t", []), events: [] });
    expect(faultOf(empty)).toMatchObject({ reason: "no_actions", detail: "no actions recorded" });
    const marked = attempt("t", [{ cmd: "ls", out: "x" }], {
      verifierOutput: "E   grader crashed: FileNotFoundError /tests/x",
    });
    expect(faultOf(marked, ["grader crashed"])).toMatchObject({
      reason: "verifier_fault",
      detail: 'verifier output contains the configured marker "grader crashed"',
      evidence: [{ excerpt: "E grader crashed: FileNotFoundError /tests/x" }],
    });
  });
});

describe("what counts as seen, and as a placeholder", () => {
  it("a file is seen existing in a listing or a read of it, not in another file's content", () => {
    const task = "Create a file called /app/out.html. You can run /app/check.py to verify.";
    const write = { cmd: "echo '<b>x</b>' > /app/out.html", out: "" };
    const mentioned = attempt(task, [
      {
        cmd: "cat /app/check.py",
        out: "from pathlib import Path\nhtml = Path('/app/out.html')\n# read /app/out.html \n",
      },
      write,
    ]);
    expect(seenExisting(mentioned, "/app/out.html")).toBe(false);
    expect(ids(mentioned).some((i) => i.startsWith("safety.overwrote-existing"))).toBe(false);
    // near miss: a listing that shows the file before the blind overwrite
    const listed = attempt(task, [{ cmd: "ls -la /app", out: "check.py\nout.html\n" }, write]);
    expect(seenExisting(listed, "/app/out.html")).toBe(true);
    expect(ids(listed)).toContain("safety.overwrote-existing@3");
  });

  it("short alternatives rewritten until the deadline are attempts, not a placeholder over a report", () => {
    const writes = (contents: string[]) =>
      Attempt.parse({
        id: "unit-2",
        source: { format: "fire-jsonl", path: "unit.jsonl" },
        taskId: "unit",
        taskText: "Write the report to /app/report.md.",
        outcome: "timeout",
        events: [
          { index: 0, kind: "prompt", role: "user", input: "Write the report to /app/report.md." },
          ...contents.map((content, i) => ({
            index: i + 1,
            kind: "tool_call" as const,
            tool: "write",
            writes: ["/app/report.md"],
            input: JSON.stringify({ path: "/app/report.md", content }),
          })),
        ],
      });
    const payloads = writes(["<svg onload=alert(1)>", "<img src=x onerror=alert(1)>", "<b>"]);
    expect(ids(payloads).some((i) => i.startsWith("deadline.no-deliverable"))).toBe(false);
    const report = "# Report\n".padEnd(2000, "findings ");
    const lost = writes([report, "Analyzing the log now."]);
    expect(ids(lost).some((i) => i.startsWith("deadline.no-deliverable"))).toBe(true);
  });
});

describe("a deadline with the work written", () => {
  const hit = (a: Attempt) => ids(a).find((i) => i.startsWith("deadline.no-deliverable"));
  const write = (index: number, path: string, content: string): Event => ({
    index,
    kind: "tool_call",
    tool: "write",
    writes: [path],
    input: JSON.stringify({ path, content }),
  });

  it("a patch or a build wrote: the run is no 'nothing written'", () => {
    const looks = Array.from({ length: 18 }, (_, i) => ({ cmd: `ls /app/dir${i}`, out: "a.c" }));
    const patched = attempt(
      "Fix the crash in /app/main.c.",
      [
        { cmd: "cd /app && patch -p1 < /tmp/fix.diff", out: "patching file src/main.c" },
        { cmd: "cd /app && make", out: "gcc -o main main.c" },
        ...looks,
      ],
      { outcome: "timeout" },
    );
    expect(hit(patched)).toBeUndefined();
    // near miss: twenty calls that only looked
    const looked = attempt(
      "Fix the crash in /app/main.c.",
      [
        { cmd: "cat /app/main.c", out: "int main(){}" },
        { cmd: "cat /tmp/fix.diff", out: "" },
        ...looks,
      ],
      { outcome: "timeout" },
    );
    expect(hit(looked)).toBe(`deadline.no-deliverable@${looked.events.at(-1)?.index}`);
  });

  it("a scratch file that shrank is no placeholder over the deliverable", () => {
    const task = "Implement the solver in /app/solve.py.";
    const run = (path: string) =>
      Attempt.parse({
        id: "unit-3",
        source: { format: "fire-jsonl", path: "unit.jsonl" },
        taskId: "unit",
        taskText: task,
        outcome: "timeout",
        events: [
          { index: 0, kind: "prompt", role: "user", input: task },
          write(1, "/app/solve.py", "def solve():\n    return 42\n"),
          write(2, path, "print('debug')\n".repeat(60)),
          write(3, path, "print(1)\n"),
        ],
      });
    expect(hit(run("/tmp/probe.py"))).toBeUndefined();
    // near miss: the same shrink of a file outside scratch space
    expect(hit(run("/app/probe.py"))).toBe("deadline.no-deliverable@2,3");
  });
});

describe("a deliverable the agent removed before its deadline", () => {
  const task = "Write the report to /app/report.json.";
  const grader = {
    outcome: "timeout" as const,
    exception: {
      type: "AgentTimeoutError",
      message: "Agent execution timed out after 360.0 seconds",
    },
    verifierOutput:
      "E   FileNotFoundError: [Errno 2] No such file or directory: '/app/report.json'",
  };
  const made = [
    { cmd: "python3 gen.py", out: "report written" },
    { cmd: "cat /app/report.json", out: '{"score": 7}' },
  ];
  const hit = (a: Attempt) => ids(a).find((i) => i.startsWith("deadline.no-deliverable"));

  it("names the deadline when the agent's own rm took the report it had made", () => {
    const a = attempt(
      task,
      [
        ...made,
        { cmd: "rm /app/report.json", out: "" },
        { cmd: "python3 gen2.py", out: "", exit: 1 },
      ],
      grader,
    );
    expect(hit(a)).toBe("deadline.no-deliverable@5,9");
    // the same removal of a whole folder above it
    const folder = attempt(task, [...made, { cmd: "rm -rf /app", out: "" }], grader);
    expect(hit(folder)).toBeDefined();
  });

  it("says nothing when the report was written again, never existed, or another file went", () => {
    const again = attempt(
      task,
      [
        ...made,
        { cmd: "rm /app/report.json", out: "" },
        { cmd: "echo {} > /app/report.json", out: "" },
      ],
      grader,
    );
    expect(hit(again)).toBeUndefined();
    const never = attempt(task, [{ cmd: "rm /app/report.json", out: "" }], grader);
    expect(hit(never)).toBeUndefined();
    const other = attempt(task, [...made, { cmd: "rm /app/report.json.bak", out: "" }], grader);
    expect(hit(other)).toBeUndefined();
  });
});

describe("checks that could not fail, by-products, regressions", () => {
  const label = (a: Attempt) => heuristicLabel(a, runDetectors(a, { siblings: [] }));

  it("vacuous check: a test module run as a script printed nothing, the verifier failed in it", () => {
    const task = "Create /app/out.html. You can run /app/test_outputs.py to verify.";
    const failed = {
      verifierOutput:
        "FAILED ../tests/test_outputs.py::test_out_html - AssertionError: No alert\n1 failed in 3.1s",
    };
    const silent = attempt(
      task,
      [
        { cmd: "echo '<b>' > /app/out.html", out: "" },
        { cmd: "cd /app && python test_outputs.py", out: "[exit_code=0]\n" },
        { say: "The test passes." },
      ],
      failed,
    );
    expect(ids(silent)).toContain("check.vacuous@3");
    const l = label(silent);
    expect(l.mechanismId).toBe("vacuous-check");
    expect(
      l.evidence?.some((e) => e.from === "verifier" && /test_outputs\.py::/.test(e.excerpt)),
    ).toBe(true);
    // near misses: the module then run under pytest; a script that printed its result
    const thenPytest = attempt(task, [
      { cmd: "python3 /app/test_outputs.py", out: "" },
      { cmd: "pytest /app/test_outputs.py", out: "1 failed" },
    ]);
    expect(ids(thenPytest).some((i) => i.startsWith("check.vacuous"))).toBe(false);
    const spoke = attempt(task, [{ cmd: "python3 /app/test_outputs.py", out: "ok: alert seen" }]);
    expect(ids(spoke).some((i) => i.startsWith("check.vacuous"))).toBe(false);
  });

  it("stray artifact: a build output left beside the deliverable, named by the verifier", () => {
    const task = "Write a single file /app/polyglot/main.py.c that runs as C and Python.";
    const steps = [
      {
        cmd: "gcc /app/polyglot/main.py.c -o /app/polyglot/cmain && /app/polyglot/cmain 3",
        out: "2",
      },
    ];
    const verifier = {
      verifierOutput:
        "E       AssertionError: Expected only main.py.c, found: ['main.py.c', 'cmain']\nFAILED tests/test_outputs.py::test_polyglot",
    };
    const left = attempt(task, steps, verifier);
    expect(ids(left)).toContain("output.stray-artifact@1");
    expect(label(left).mechanismId).toBe("stray-artifact-left");
    const cleaned = attempt(
      task,
      [...steps, { cmd: "rm -f /app/polyglot/cmain", out: "" }],
      verifier,
    );
    expect(ids(cleaned).some((i) => i.startsWith("output.stray-artifact"))).toBe(false);
    const notNamed = attempt(task, steps, {
      verifierOutput: "FAILED test_polyglot - wrong output",
    });
    expect(ids(notNamed).some((i) => i.startsWith("output.stray-artifact"))).toBe(false);
  });

  it("stray artifact: a module the deliverable runs or imports is no by-product", () => {
    const task =
      "Write a parser in /app/solution.py that reads /app/input.txt and prints the totals.";
    const traceback = [
      "tests/test_outputs.py::test_totals FAILED",
      '  File "/app/helpers.py", line 3, in parse_line',
      "E   ValueError: invalid literal for int() with base 10: 'x'",
      "FAILED tests/test_outputs.py::test_totals - ValueError: invalid literal",
    ].join("\n");
    const helper = {
      cmd: "cat > /app/helpers.py <<'EOF'\ndef parse_line(l):\n    k, v = l.split()\n    return k, int(v)\nEOF",
      out: "",
    };
    const solution = (body: string) => ({
      cmd: `cat > /app/solution.py <<'EOF'\n${body}\nprint(sum(parse_line(l)[1] for l in open('/app/input.txt')))\nEOF`,
      out: "",
    });
    const stray = (a: Attempt) => ids(a).some((i) => i.startsWith("output.stray-artifact"));
    // imported by the deliverable, and in the verifier only as a traceback frame
    const imported = attempt(task, [helper, solution("from helpers import parse_line")], {
      verifierOutput: traceback,
    });
    expect(stray(imported)).toBe(false);
    expect(label(imported).mechanismId).not.toBe("stray-artifact-left");
    // a frame alone is no report of a file left over, imported or not
    const framed = attempt(task, [helper, solution("exec(open('/app/helpers.py').read())")], {
      verifierOutput: traceback,
    });
    expect(stray(framed)).toBe(false);
    // near miss: a scratch file the verifier lists under a report of unexpected files
    const listed = attempt(task, [helper, solution("exec(open('/app/helpers.py').read())")], {
      verifierOutput:
        "E   AssertionError: unexpected files in /app:\nE     - helpers.py\nFAILED tests/test_outputs.py::test_only_solution",
    });
    expect(stray(listed)).toBe(true);
    expect(label(listed).mechanismId).toBe("stray-artifact-left");
    // the same report of a module the deliverable imports: part of the deliverable
    expect(stray({ ...listed, events: imported.events.map((e) => ({ ...e })) } as Attempt)).toBe(
      false,
    );
    expect(importedBy("/app/helpers.py", "from helpers import parse_line")).toBe(true);
    expect(importedBy("/app/helpers.py", "import app.helpers as h")).toBe(true);
    expect(importedBy("/app/helpers.js", "const h = require('./helpers');")).toBe(true);
    expect(importedBy("/app/util.h", '#include "util.h"')).toBe(true);
    expect(importedBy("/app/helpers.py", "print('no helpers here')")).toBe(false);
  });

  it("regression unchecked: target tests pass, broken existing tests never run", () => {
    const tests = (targetStatus: "passed" | "failed") => ({
      verifierTests: [
        { name: "tests/test_fig.py::test_new", status: targetStatus, role: "target" as const },
        {
          name: "tests/test_fig.py::test_old",
          status: "failed" as const,
          role: "regression" as const,
        },
      ],
    });
    const steps = [
      { cmd: "sed -i 's/a/b/' lib/fig.py", out: "" },
      { cmd: "python reproduce.py", out: "fixed" },
    ];
    const broke = attempt("Fix the figure bug.", steps, tests("passed"));
    expect(ids(broke)).toContain("check.regression-unchecked@5");
    const l = label(broke);
    expect(l.mechanismId).toBe("regression-unchecked");
    expect(l.kind).toBe("procedural_loss");
    expect(l.evidence?.some((e) => e.claim === "capability" && e.from === "verifier")).toBe(true);
    // near misses: the module was run; the fix itself did not work
    const ran = attempt(
      "Fix the figure bug.",
      [...steps, { cmd: "python -m pytest tests/test_fig.py -q", out: "1 failed" }],
      tests("passed"),
    );
    expect(ids(ran).some((i) => i.startsWith("check.regression-unchecked"))).toBe(false);
    const notFixed = attempt("Fix the figure bug.", steps, tests("failed"));
    expect(ids(notFixed).some((i) => i.startsWith("check.regression-unchecked"))).toBe(false);
    // any runner counts: jest on the broken test file, go test on the whole suite
    const js = {
      verifierTests: [
        {
          name: "test/parser.test.js::parses dates",
          status: "passed" as const,
          role: "target" as const,
        },
        {
          name: "test/parser.test.js::keeps old",
          status: "failed" as const,
          role: "regression" as const,
        },
      ],
    };
    for (const cmd of ["npx jest test/parser.test.js", "go test ./..."]) {
      const run = attempt("Fix the parser.", [...steps, { cmd, out: "1 failed", exit: 1 }], js);
      expect(fires(run, "check.regression-unchecked"), cmd).toBe(false);
    }
  });

  it("regression unchecked: any `<program> test` and a runner script's labels are runs", () => {
    const edit = { cmd: "sed -i 's/a/b/' src/foo.x", out: "" };
    const generic = {
      verifierTests: [
        { name: "tests/FooTests::test_target", status: "passed" as const, role: "target" as const },
        {
          name: "tests/BarTests::test_other",
          status: "failed" as const,
          role: "regression" as const,
        },
      ],
    };
    const run = (cmd: string, tests = generic) =>
      fires(
        attempt("Fix the bug.", [edit, { cmd, out: "ok" }], tests),
        "check.regression-unchecked",
      );
    for (const cmd of [
      "dotnet test",
      "bazel test //...",
      "swift test",
      "bun test",
      "deno test",
      "mix test",
      "bundle exec rake test",
      "cd /app && timeout 600 swift test --parallel",
      "python tests/runtests.py",
    ])
      expect(run(cmd), cmd).toBe(false);
    // a program that takes a folder or name called "test" runs nothing
    for (const cmd of ["cd test", "mkdir test", "ls test", "psql test"])
      expect(run(cmd), cmd).toBe(true);
    // unittest-style ids: a runner script given the test's module (or a dotted prefix) ran it
    const django = {
      verifierTests: [
        {
          name: "test_key_transform (model_fields.test_jsonfield.TestQuerying)",
          status: "passed" as const,
          role: "target" as const,
        },
        {
          name: "test_deep_lookup (model_fields.test_jsonfield.TestQuerying)",
          status: "failed" as const,
          role: "regression" as const,
        },
      ],
    };
    for (const cmd of [
      "cd /testbed && python tests/runtests.py model_fields.test_jsonfield",
      "python tests/runtests.py --parallel 1 model_fields",
      "./tests/runtests.py model_fields.test_jsonfield.TestQuerying.test_deep_lookup",
    ])
      expect(run(cmd, django), cmd).toBe(false);
    // labels that leave the broken test out did not run it
    expect(run("python tests/runtests.py model_fields.test_decimalfield", django)).toBe(true);
    expect(run("python tests/runtests.py model_fields", generic)).toBe(true);
    // a module whose last part is a common folder name (`queries.tests`): another test of the
    // suite run by file or label does not run it, though its command says "tests"
    const queries = {
      verifierTests: [
        {
          name: "test_target (queries.test_q.QTests)",
          status: "passed" as const,
          role: "target" as const,
        },
        {
          name: "test_ticket_1 (queries.tests.Queries1Tests)",
          status: "failed" as const,
          role: "regression" as const,
        },
      ],
    };
    expect(run("python tests/runtests.py queries.test_q", queries)).toBe(true);
    expect(run("python -m pytest tests/queries/test_q.py", queries)).toBe(true);
    expect(run("python -m pytest tests/queries/tests.py", queries)).toBe(false);
    expect(run("python tests/runtests.py queries", queries)).toBe(false);
  });

  it("a script's own [0] or break is no answer cut to its first result", () => {
    const task = "Find all valid moves, one per line, and write them to /app/moves.txt.";
    const script =
      "python3 - <<'EOF'\nmoves = sorted({l.split()[0] for l in open('/app/log')})\nopen('/app/moves.txt','w').write('\\n'.join(moves))\nEOF";
    const fired = (cmd: string) =>
      fires(attempt(task, [{ cmd, out: "" }]), "answers.single-emitted");
    expect(fired(script)).toBe(false);
    expect(fired("./solve | head -1 > /app/moves.txt")).toBe(true);
  });

  it("reads the answer file the task names, not the last file written", () => {
    const task = "Find all valid moves, one per line, and write them to /app/moves.txt.";
    const answered = { cmd: "printf 'e2e4\\nd2d4\\n' > /app/moves.txt", out: "" };
    const status = { cmd: "echo done > /tmp/status", out: "" };
    expect(fires(attempt(task, [answered, status]), "answers.single-emitted")).toBe(false);
    const one = { cmd: "echo e2e4 > /app/moves.txt", out: "" };
    expect(fires(attempt(task, [one, status]), "answers.single-emitted")).toBe(true);
    // a file the task gives as an input is no answer file
    const input = `${task} The provided board is in /app/board.fen.`;
    const rewrote = { cmd: "echo 8/8/8 > /app/board.fen", out: "" };
    expect(fires(attempt(input, [answered, rewrote]), "answers.single-emitted")).toBe(false);
    // a task that names no answer file gives none to read
    const unnamed = "Find all valid moves, one per line.";
    expect(fires(attempt(unnamed, [one]), "answers.single-emitted")).toBe(false);
  });

  it("stopped after a failing test run: named when the grader failed the same test", () => {
    const task = "Make the parser accept empty fields. Tests are in /app/tests.";
    const run = {
      cmd: "cd /app && python -m pytest tests -q",
      out: "FAILED tests/test_parse.py::test_empty_fields - AssertionError\n1 failed, 4 passed",
      exit: 1,
    };
    /** pytest's report as a grader prints it, failing `name`. */
    const pytest = (name: string) =>
      [
        "============================= test session starts ==============================",
        "collected 7 items",
        "",
        "tests/test_parse.py ......F                                                [100%]",
        "",
        "=========================== short test summary info ============================",
        `FAILED tests/test_parse.py::${name} - AssertionError: [] != ['']`,
        "========================= 1 failed, 6 passed in 0.41s ==========================",
      ].join("\n");
    const grader = { verifierOutput: pytest("test_empty_fields") };
    const steps = [
      { cmd: 'sed -i \'s/split(",")/split(",", -1)/\' /app/parse.py', out: "" },
      run,
      { say: "The remaining failure is an edge case; the fix is done." },
    ];
    const stopped = attempt(task, steps, grader);
    expect(ids(stopped)).toContain("stop.last-check-failed@3");
    const l = label(stopped);
    expect(l.mechanismId).toBe("stop-after-failed-check");
    expect(
      l.evidence?.some((e) => e.from === "verifier" && /test_empty_fields/.test(e.excerpt)),
    ).toBe(true);
    // the grader failed another test: one kind of evidence only, kept for review
    const other = attempt(task, steps, { verifierOutput: pytest("test_quoted_commas") });
    expect(label(other).mechanismId).toBeUndefined();
    // the grader's failing test passed in the agent's last run (another test failed there)
    const verbose = {
      ...run,
      cmd: "cd /app && python -m pytest tests -v",
      out: "tests/test_parse.py::test_empty_fields PASSED\ntests/test_parse.py::test_network_fetch FAILED\n1 failed, 1 passed",
    };
    const passedThere = attempt(task, [steps[0] as Step, verbose, steps[2] as Step], grader);
    expect(ids(passedThere)).toContain("stop.last-check-failed@3");
    expect(label(passedThere).mechanismId).toBeUndefined();
    // a passing run after the failing one: no hit
    const fixed = attempt(
      task,
      [...steps.slice(0, 2), { cmd: run.cmd, out: "5 passed", exit: 0 }],
      grader,
    );
    expect(ids(fixed).some((i) => i.startsWith("stop.last-check-failed"))).toBe(false);
    // an edit after the failing run: the run stopped on a state no check saw
    const edited = attempt(
      task,
      [...steps.slice(0, 2), { cmd: "sed -i 's/-1/maxsplit=-1/' /app/parse.py", out: "" }],
      grader,
    );
    expect(ids(edited).some((i) => i.startsWith("stop.last-check-failed"))).toBe(false);
    expect(ids(edited).some((i) => i.startsWith("stop.no-check-after-write"))).toBe(true);
    // lines taken out after it (debug prints) change nothing the check saw
    const cleaned = attempt(
      task,
      [...steps.slice(0, 2), { cmd: "sed -i '/DEBUG:/d' /app/parse.py", out: "" }],
      grader,
    );
    expect(ids(cleaned).some((i) => i.startsWith("stop.last-check-failed"))).toBe(true);
  });

  it("a check that never ran is no check: refused by the harness, unparsable, not found", () => {
    const task = "Implement parse() in /app/parse.py so that the tests in /app/tests pass.";
    const edit = { cmd: "sed -i 's/pass/return x/' /app/parse.py", out: "" };
    const refused = {
      cmd: "pytest -q /app/tests",
      out: "Please always provide EXACTLY ONE action in triple backticks, found 2 actions.",
      exit: 1,
    };
    const a = attempt(task, [edit, refused, { say: "All tests pass." }]);
    // neither a failing last check nor a check after the write: the check never ran
    expect(fires(a, "stop.last-check-failed")).toBe(false);
    expect(fires(a, "stop.check-did-not-run")).toBe(true);
    expect(
      runDetectors(a, { siblings: [] }).find((h) => h.detectorId === "stop.no-check-after-write")
        ?.reason,
    ).toMatch(/never ran/);
    // a refused edit wrote nothing: the last write is the one that ran
    const refusedEdit = {
      ...edit,
      cmd: "sed -i 's/x/y/' /app/parse.py",
      out: refused.out,
      exit: 1,
    };
    const b = attempt(task, [edit, refusedEdit, { say: "Done." }]);
    expect(ids(b)).toContain("stop.no-check-after-write@1");
    // work after the check that could not run: the agent did not stop right after it
    const notFound = {
      cmd: "pytest -q /app/tests",
      out: "bash: pytest: command not found",
      exit: 127,
    };
    const c = attempt(task, [notFound, edit, { cmd: "python3 /app/parse.py", out: "ok" }]);
    expect(fires(c, "stop.check-did-not-run")).toBe(false);
    // a test id pytest could not find: that run checked nothing, but an edit the same call
    // made before it did run
    const idNotFound = "ERROR: file or directory not found: tests/test_ap.py";
    const both = attempt(task, [
      { cmd: "sed -i 's/x/y/' /app/parse.py && pytest tests/test_ap.py", out: idNotFound, exit: 4 },
      { say: "Done." },
    ]);
    const call = both.events.find((e) => e.kind === "tool_call");
    expect(call && neverRan(both, call)).toBe(false);
    expect(fires(both, "stop.check-did-not-run")).toBe(false);
    const alone = attempt(task, [
      edit,
      { cmd: "pytest tests/test_ap.py", out: idNotFound, exit: 4 },
    ]);
    expect(fires(alone, "stop.check-did-not-run")).toBe(true);
  });

  it("the grader could not load the file the unchecked last write changed: named", () => {
    const task = "Implement parse() in /app/parse.py so that the tests in /app/tests pass.";
    const steps = [
      { cmd: "pytest -q /app/tests", out: "1 failed", exit: 1 },
      { cmd: "sed -i '3s/.*/  return x/' /app/parse.py", out: "" },
      { say: "Fixed the indentation; done." },
    ];
    const grader = (...lines: string[]) => ({ verifierOutput: lines.join("\n") });
    const named = (g: { verifierOutput: string }, evidence: RegExp) => {
      const l = label(attempt(task, steps, g));
      expect(l).toMatchObject({ status: "named", mechanismId: "stop-without-check" });
      expect(l.evidence?.some((e) => e.from === "verifier" && evidence.test(e.excerpt))).toBe(true);
    };
    const collecting = "ImportError while importing test module '/app/tests/test_parse.py'.";
    // a compile error at the written file's line
    named(
      grader(
        collecting,
        'E     File "/app/parse.py", line 3',
        "E   IndentationError: unexpected indent",
      ),
      /parse\.py", line 3/,
    );
    // an import the written file no longer satisfies, as Python names it
    named(
      grader(
        collecting,
        "E   ImportError: cannot import name 'parse' from 'app.parse' (/app/parse.py)",
      ),
      /\(\/app\/parse\.py\)/,
    );
    // a name never defined, at a frame of the written file (pytest's short traceback)
    named(
      grader(
        "tests/test_parse.py:1: in <module>",
        "parse.py:3: in <module>",
        "E   NameError: name 'x' is not defined",
      ),
      /parse\.py:3: in/,
    );
    // a test that ran and failed on the code corroborates nothing: kept for review
    const ran = label(
      attempt(
        task,
        steps,
        grader(
          "tests/test_parse.py:5: in test_parse",
          "    assert parse() == 3",
          "parse.py:3: in parse",
          "E   AssertionError: assert None == 3",
        ),
      ),
    );
    expect(ran.mechanismId).toBeUndefined();
    // a load error in another file than the one written corroborates nothing either
    const other = label(
      attempt(
        task,
        steps,
        grader(collecting, 'E     File "/app/util.py", line 3', "E   SyntaxError: invalid syntax"),
      ),
    );
    expect(other.mechanismId).toBeUndefined();
    // any file written since the last check that ran counts, not only the last write's
    const utilError = grader(
      collecting,
      'E     File "/app/util.py", line 7',
      "E   SyntaxError: invalid syntax",
    );
    const editUtil = { cmd: "sed -i.bak '7s/.*/  return y)/' /app/util.py", out: "" };
    const both =
      "Implement parse() in /app/parse.py and its helper in /app/util.py so that the tests in /app/tests pass.";
    const sinceCheck = label(attempt(both, [steps[0], editUtil, steps[1], steps[2]], utilError));
    expect(sinceCheck).toMatchObject({ status: "named", mechanismId: "stop-without-check" });
    // a file a check that ran has seen since its write is not what the stop left unchecked
    const seen = label(
      attempt(
        both,
        [editUtil, { cmd: "pytest -q /app/tests", out: "1 failed", exit: 1 }, steps[1], steps[2]],
        utilError,
      ),
    );
    expect(seen.mechanismId).toBeUndefined();
  });

  it("task-role gates read the task's role, not a word in it", () => {
    const fired = (task: string, steps: Step[], id: string) =>
      fires(attempt(task, steps), `${id}@`);
    const edit: Step[] = [
      { cmd: "sed -i 's/a/b/' src/widget.py", out: "" },
      { cmd: "python3 -m pytest -q", out: "3 passed" },
    ];
    // a git clone of a repository whose command is to be fixed re-implements no binary
    const clone =
      "Clone https://github.com/acme/widget and fix the `widget` command so it exits 0.";
    expect(fired(clone, edit, "binary.never-compared")).toBe(false);
    // re-implementing a part of a program names no existing program to match
    const part = "Reimplement the retry logic so the `sync` command no longer hangs.";
    expect(fired(part, edit, "binary.never-compared")).toBe(false);
    const search =
      "Reimplement the binary search used by the `sync` command so it no longer hangs.";
    expect(fired(search, edit, "binary.never-compared")).toBe(false);
    const tool = "Reimplement the original `sync` command in Go, with the same flags.";
    expect(fired(tool, edit, "binary.never-compared")).toBe(true);
    expect(
      fired(
        "Re-implement the /usr/bin/wc binary in Rust; it must give identical output.",
        edit,
        "binary.never-compared",
      ),
    ).toBe(true);
    // a soft-delete feature gives the database no evidence role
    const soft = "Implement soft delete: deleted records in the database must not be returned.";
    expect(
      fired(
        soft,
        [{ cmd: "sqlite3 data.db .schema", out: "CREATE TABLE t(x);" }],
        "evidence.mutated-before-copy",
      ),
    ).toBe(false);
    // "Only use the standard library" is no closed replacement map
    const fix =
      "Replace the broken parse_date in utils.py with a working one. Only use the standard library.";
    expect(fired(fix, edit, "exact.no-diff-after-replace")).toBe(false);
    // API tokens with fields are no count of a text's tokens
    const api =
      "Count the number of API tokens issued per user. Each record has the fields `user_id` and `token_id`.";
    expect(
      fired(api, [{ cmd: "echo 42 > /app/count.txt", out: "" }], "dataset.fields-unreconciled"),
    ).toBe(false);
  });

  it("a per-field count a program printed and the agent summed is reconciled", () => {
    const task =
      "Count the tokens of the corpus over the fields `title` and `body`, and write the total number to /app/total.txt.";
    const counted = {
      cmd: "python3 count.py",
      out: "title_id 12 tokens 7\ntitle tokens (v2): 1,200\nbody tokens: 3400",
    };
    const summed = fires(
      attempt(task, [counted, { cmd: "echo 4600 > /app/total.txt", out: "" }]),
      "dataset.fields-unreconciled",
    );
    expect(summed).toBe(false);
    // near miss: the written number is not those counts' sum
    const off = fires(
      attempt(task, [counted, { cmd: "echo 3414 > /app/total.txt", out: "" }]),
      "dataset.fields-unreconciled",
    );
    expect(off).toBe(true);
  });

  it("a daemon's config test, a signal to it or a client naming its user is no server launch", () => {
    const task = "Configure nginx as a reverse proxy so the service stays reachable on port 8080.";
    const launched = (cmd: string) =>
      fires(attempt(task, [{ cmd, out: "" }]), "service.attached-launch@");
    expect(launched("nginx -t && nginx -s reload")).toBe(false);
    expect(launched("psql -U postgres -f /app/q.sql")).toBe(false);
    expect(launched("nginx")).toBe(true);
    expect(launched("sudo -u postgres postgres -D /var/lib/pg/data")).toBe(true);
  });

  it("a job sent to the background is a launch only when it serves; a detached one is probed", () => {
    const svc = "Start the web server on port 8000 and keep it running.";
    const hit = (task: string, steps: Step[]) =>
      fires(attempt(task, steps), "service.attached-launch");
    // a test run sent to the background with its log is no server launch
    const testJob = {
      cmd: "cd /app && python3 -m pytest tests/ > /tmp/log.txt 2>&1 &",
      out: "[1] 99",
    };
    expect(hit(svc, [testJob, { cmd: "sleep 20; cat /tmp/log.txt", out: "5 passed" }])).toBe(false);
    // "server-side" names no server the task asks for
    const side = "Fix the SQL parser in /app/parser.py so the server-side queries parse correctly.";
    expect(hit(side, [{ cmd: "python3 app.py &", out: "" }])).toBe(false);
    // nohup only ignores the hangup: the job stays in the agent's session, probed or not
    const probe = { cmd: "curl -s localhost:8000/", out: "<html>hello</html>" };
    const nohup = { cmd: "nohup python3 /app/server.py > /tmp/server.log 2>&1 &", out: "[1] 1234" };
    expect(hit(svc, [nohup, probe])).toBe(true);
    // started in a new session with its streams in a file, then probed: it outlives the shell
    const setsid = { cmd: "setsid python3 /app/server.py > /tmp/server.log 2>&1 &", out: "" };
    expect(hit(svc, [setsid, probe])).toBe(false);
    // servers that daemonize themselves leave the session
    const db = "Set up the database service so that it stays running and is reachable.";
    const up = { cmd: "nc -z localhost 27017 && echo up", out: "up" };
    for (const cmd of ["nginx", "/usr/sbin/sshd", "mongod --fork --logpath /var/log/mongod.log"])
      expect(hit(db, [{ cmd, out: "" }, up]), cmd).toBe(false);
    // near misses: a server kept in the foreground and sent to the background, or a
    // nohup, still die with the shell
    expect(hit(db, [{ cmd: "nginx -g 'daemon off;' &", out: "" }, up])).toBe(true);
    expect(hit(db, [{ cmd: "/usr/sbin/sshd -D &", out: "" }, up])).toBe(true);
    expect(hit(svc, [{ cmd: "cd /app && nohup python3 app.py &", out: "" }, probe])).toBe(true);
    expect(hit(svc, [{ cmd: "python3 -m http.server 8000 &", out: "" }, probe])).toBe(true);
    // a program of the agent's own that a later call probes on this machine serves
    expect(hit(svc, [{ cmd: "./run.sh > /tmp/run.log 2>&1 &", out: "" }, probe])).toBe(true);
    // a launch written into a hook script (a heredoc) or named in a quoted pattern runs nothing:
    // the last launch is the attached one before it
    const hook = {
      cmd: "cat > /git/hooks/post-receive <<'EOF'\nnohup python3 -m http.server 8000 > /dev/null 2>&1 &\nEOF",
      out: "",
    };
    const attached = { cmd: "python3 -m http.server 8000 &", out: "" };
    expect(ids(attempt(svc, [attached, probe, hook]))).toContain("service.attached-launch@1");
    const look = { cmd: "ps aux | grep -E 'sshd|nginx'", out: "" };
    expect(hit(db, [look, up])).toBe(false);
  });

  it("a database or cache client reaching the local server probes a detached launch", () => {
    const task = "Start a Redis server listening on port 6379 and leave it running.";
    const hit = (steps: Step[]) => fires(attempt(task, steps), "service.attached-launch");
    const ping = { cmd: "redis-cli -p 6379 ping", out: "PONG" };
    // a server that daemonizes itself, then reached by its client: detached and probed
    for (const cmd of [
      "redis-server --port 6379 --daemonize yes",
      "redis-server --port 6379 --daemonize=yes",
    ])
      expect(hit([{ cmd, out: "" }, ping]), cmd).toBe(false);
    const fork = { cmd: "mongod --fork --logpath /var/log/mongod.log", out: "" };
    expect(hit([fork, { cmd: "mongosh --quiet --eval 'db.runCommand({ping:1})'", out: "1" }])).toBe(
      false,
    );
    const pg = { cmd: "sudo -u postgres pg_ctl start -D /var/lib/pg/data -l /tmp/pg.log", out: "" };
    expect(hit([pg, { cmd: "sudo -u postgres psql -c 'select 1'", out: "1" }])).toBe(false);
    expect(hit([pg, { cmd: "pg_isready -h localhost", out: "accepting connections" }])).toBe(false);
    // near misses: a foreground server (sent to the background or not) dies with the shell,
    // probed or not; a detached one never reached, or reached only on another host, or a
    // client only looked up or asked its version, is never probed
    expect(hit([{ cmd: "redis-server --port 6379", out: "" }, ping])).toBe(true);
    expect(hit([{ cmd: "redis-server --port 6379 &", out: "" }, ping])).toBe(true);
    const daemon = { cmd: "redis-server --port 6379 --daemonize yes", out: "" };
    expect(hit([daemon])).toBe(true);
    expect(hit([daemon, { cmd: "redis-cli -h cache.internal -p 6379 ping", out: "PONG" }])).toBe(
      true,
    );
    expect(hit([daemon, { cmd: "which redis-cli", out: "/usr/bin/redis-cli" }])).toBe(true);
    expect(hit([daemon, { cmd: "redis-cli --version", out: "redis-cli 7.0.15" }])).toBe(true);
  });

  it("no mechanism and no look at the work after its last write is no capability gap", () => {
    const task = "Fix the parser in /app/parse.py.";
    const unchecked = attempt(task, [
      { cmd: "cat /app/parse.py", out: "def parse(x): ..." },
      { cmd: "sed -i 's/x/y/' /app/parse.py", out: "" },
    ]);
    const checked = attempt(task, [
      { cmd: "sed -i 's/x/y/' /app/parse.py", out: "" },
      { cmd: "python3 -m pytest -q", out: "3 passed" },
    ]);
    // (no detector fired: the stop-without-check pattern alone would be a suspicion)
    const u = heuristicLabel(unchecked, []);
    expect([u.exclusion, u.status]).toEqual(["none", "needs_review"]);
    expect(u.rationale).toContain("never looked at its work after its last write");
    expect(heuristicLabel(checked, []).exclusion).toBe("capability_gap");
    // an agent offered no tool that runs code had no check to run: its finished edit is a gap
    const noRunner = { ...unchecked, offeredTools: ["search_code", "write_patch"] };
    const g = heuristicLabel(noRunner, []);
    expect(g.exclusion).toBe("capability_gap");
    expect(g.rationale).toContain("offered no tool that runs code");
    // with no edit to stop after, the rationale says nothing of a stop
    const readOnly = {
      ...attempt(task, [{ cmd: "cat /app/parse.py", out: "x" }]),
      offeredTools: ["search_code"],
    };
    expect(heuristicLabel(readOnly, []).rationale).not.toContain("offered no tool that runs code");
    // a runner among its tools: the missing check is still what a rule could ask for
    const runner = { ...unchecked, offeredTools: ["search_code", "write_patch", "run_tests"] };
    expect(heuristicLabel(runner, []).status).toBe("needs_review");
  });

  it("a download checks nothing; a probe of a service and a query client do", () => {
    expect(isVerification(ev("curl -fsSL https://example.org/tool.tar.gz | tar xz"))).toBe(false);
    expect(isVerification(ev("wget https://example.org/data.csv"))).toBe(false);
    expect(isVerification(ev("curl -s http://web:8080/health"))).toBe(true);
    expect(isVerification(ev("curl -s localhost:8080/health"))).toBe(true);
    expect(isCheck(ev("psql -U app -c 'select count(*) from orders'"))).toBe(true);
    expect(isCheck(ev("go run ./cmd/report"))).toBe(true);
  });

  it("a LaTeX build whose own output shows the whole clean run is the log's search", () => {
    const task =
      "Compile main.tex to main.pdf. The final build must have no overfull hbox warnings.";
    const done =
      "Output written on main.pdf (3 pages, 51234 bytes).\nTranscript written on main.log.";
    const clean = attempt(task, [{ cmd: "pdflatex -interaction=nonstopmode main.tex", out: done }]);
    expect(fires(clean, "latex.")).toBe(false);
    // warnings on the terminal: seen and left, still the LaTeX contract's loss
    const warned = attempt(task, [
      {
        cmd: "pdflatex main.tex",
        out: `Overfull \\hbox (12.3pt too wide) in paragraph at lines 10--12\n${done}`,
      },
    ]);
    const hit = runDetectors(warned, { siblings: [] }).find((h) =>
      h.detectorId.startsWith("latex."),
    );
    expect(hit?.reason).toMatch(/printed box warnings/);
    // output the agent did not see whole: piped, silenced, or a run that did not finish
    for (const cmd of ["pdflatex main.tex | tail -3", "pdflatex -interaction=batchmode main.tex"])
      expect(fires(attempt(task, [{ cmd, out: done }]), "latex.")).toBe(true);
    expect(fires(attempt(task, [{ cmd: "pdflatex main.tex", out: "(./main.tex" }]), "latex.")).toBe(
      true,
    );
  });

  it("a search that found nothing, then a question to the user, is an input never found", () => {
    const task = "Fix the stale status handling in the operator's controllers.";
    const asked = (out: string) =>
      attempt(task, [
        { cmd: 'find /workspace -type f -name "*.go" | head -50', out },
        { say: "The workspace is empty. Could you point me to where the operator code is?" },
      ]);
    expect(fires(asked("(no output)"), "input.discovery-miss")).toBe(true);
    expect(fires(asked(""), "input.discovery-miss")).toBe(true);
    // the search found files: the agent had its inputs, the question is about something else
    expect(fires(asked("/workspace/main.go"), "input.discovery-miss")).toBe(false);
    // a report that only shows a nullable type or an optional chain asks nothing
    const reported = (say: string) =>
      attempt(task, [{ cmd: 'find /workspace -name "*.kt"', out: "(no output)" }, { say }]);
    expect(
      fires(
        reported("Added `setListener(l: Listener?)` and `a?.b` handling. Done."),
        "input.discovery-miss",
      ),
    ).toBe(false);
    expect(fires(reported("代码在哪里？请告诉我仓库的位置"), "input.discovery-miss")).toBe(true);
  });

  it("a closing question after a miss the agent got past asks for no input", () => {
    const task = "Fix the existing implementation of parse_date in this repository.";
    const miss = {
      cmd: "cat CONTRIBUTING.md",
      out: "cat: CONTRIBUTING.md: No such file or directory",
      exit: 1,
    };
    const found = {
      cmd: "grep -rn 'def parse_date' .",
      out: "./src/dates.py:10:def parse_date(s):",
    };
    const edit = { cmd: "sed -i 's/old/new/' src/dates.py", out: "" };
    const passed = { cmd: "python -m pytest -q", out: "5 passed in 0.12s" };
    const offer = "Fixed parse_date; all 5 tests pass. Should I also add a changelog entry?";
    expect(
      fires(attempt(task, [miss, found, edit, passed, { say: offer }]), "input.discovery-miss"),
    ).toBe(false);
    // a question alone says nothing was missing, even with nothing written
    expect(
      fires(
        attempt(task, [miss, { say: "Should I add a changelog entry?" }]),
        "input.discovery-miss",
      ),
    ).toBe(false);
    // a write the agent then saw pass: it had its inputs, whatever it asks at the end
    const asks = "I could not find CONTRIBUTING.md. Where is it?";
    expect(
      fires(attempt(task, [miss, found, edit, passed, { say: asks }]), "input.discovery-miss"),
    ).toBe(false);
    // the case the rule is for: the miss, nothing checked, and the user asked for the input
    expect(fires(attempt(task, [miss, { say: asks }]), "input.discovery-miss")).toBe(true);
    const failed = { cmd: "python -m pytest -q", out: "1 failed, 4 passed", exit: 1 };
    expect(fires(attempt(task, [miss, edit, failed, { say: asks }]), "input.discovery-miss")).toBe(
      true,
    );
  });

  it("a task that keeps behaviour, or forbids a replacement, sets no exact-content contract", () => {
    const run = (task: string) =>
      attempt(task, [
        { cmd: "sed -i 's/old/new/' pkg/a.go", out: "" },
        { cmd: "cat > pkg/a.go <<'EOF'\npackage a\nEOF", out: "" },
      ]);
    const exact = (task: string) =>
      runDetectors(run(task), { siblings: [] }).some((h) => h.detectorId.startsWith("exact."));
    expect(exact("Fix the decoder. Existing number decoding behavior must remain intact.")).toBe(
      false,
    );
    expect(
      exact(
        "Clear only the default key; the fix must not replace the whole encryption configuration.",
      ),
    ).toBe(false);
    // content kept as it is, or a closed replacement: the contract stands
    expect(exact("Fix the header. Leave everything else unchanged.")).toBe(true);
  });
});

describe("a check that could not run, and tools the task relies on", () => {
  const issue =
    "WRAP_ROOT_VALUE is ignored.\n```java\npublic ObjectMapper objectMapper() { return new ObjectMapper(); }\n```\nThe value may be `null`.";

  it("a code fence's language tag names no tool the task relies on", () => {
    expect(taskReliesOn(issue, "java")).toBe(false);
    expect(taskReliesOn("Run `java -jar app.jar` and report the port.", "java")).toBe(true);
  });

  it("no environment fault when a missing JDK stood only in the way of the agent's own check", () => {
    const a = attempt(issue, [
      { cmd: "edit src/Mapper.java", out: "File updated." },
      {
        cmd: "javac Reproduce.java && java Reproduce",
        out: "bash: line 9: javac: command not found",
        exit: 127,
      },
    ]);
    expect(faultOf(a)).toBeUndefined();
    // prose run as a command: the missing program is the agent's own first word, not a tool
    const prose = attempt(issue, [
      {
        cmd: "DISCUSSION The value is `null` here\nnull",
        out: "bash: line 1: DISCUSSION: command not found\nbash: line 2: null: command not found",
        exit: 127,
      },
    ]);
    expect(faultOf(prose)).toBeUndefined();
    // a tool the task names, missing at its last use, is still the environment's
    const gh = attempt("Use the gh CLI to list the open issues.", [
      { cmd: "gh issue list", out: "bash: gh: command not found", exit: 127 },
    ]);
    expect(faultOf(gh)?.reason).toBe("provider_fault");
  });

  it("a last check whose program was not found is a stop without a check, not after a failing one", () => {
    const a = attempt("Fix the parser in src/Parser.java.", [
      { cmd: "sed -i 's/a/b/' src/Parser.java", out: "" },
      { cmd: "mvn test -Dtest=ParserTest", out: "bash: line 4: mvn: command not found", exit: 127 },
    ]);
    expect(fires(a, "stop.check-did-not-run")).toBe(true);
    expect(fires(a, "stop.last-check-failed")).toBe(false);
    // a check that ran and failed is still one
    const ran = attempt("Fix the parser in src/Parser.java.", [
      { cmd: "sed -i 's/a/b/' src/Parser.java", out: "" },
      {
        cmd: "mvn test -Dtest=ParserTest",
        out: "Tests run: 3, Failures: 1\nBUILD FAILURE",
        exit: 1,
      },
    ]);
    expect(fires(ran, "stop.last-check-failed")).toBe(true);
    expect(fires(ran, "stop.check-did-not-run")).toBe(false);
  });

  it("a lookup or a clean names a compiler without building anything", () => {
    const a = attempt("Build the library.", [
      { cmd: "find / -name javac 2>/dev/null", out: "" },
      { cmd: "make clean", out: "rm -f *.o" },
    ]);
    expect(fires(a, "capability.earlier-success")).toBe(false);
    const built = attempt("Build the library.", [{ cmd: "make -C lib", out: "cc -c a.c" }]);
    expect(fires(built, "capability.earlier-success")).toBe(true);
    // a build sent to the background: the exit 0 is the shell's, not the build's
    const background = attempt("Build the Rust project in /app in release mode.", [
      { cmd: "cd /app && cargo build --release > /tmp/build.log 2>&1 &", out: "[1] 77" },
    ]);
    expect(fires(background, "capability.earlier-success")).toBe(false);
    const waited = attempt("Build the Rust project in /app in release mode.", [
      { cmd: "cd /app && cargo build --release > /tmp/build.log 2>&1", out: "" },
    ]);
    expect(fires(waited, "capability.earlier-success")).toBe(true);
  });

  it("a download is no deployment probe, and a package manager checks nothing of the agent's", () => {
    const a = attempt("Fix the retry in the registry client.", [
      {
        cmd: "wget https://example.org/download/tool-7.88.1.tar.gz",
        out: "HTTP request sent, awaiting response... 200 OK\nSaving to: 'tool-7.88.1.tar.gz'",
      },
      { cmd: "sudo apt-get check", out: "Reading package lists...\nBuilding dependency tree..." },
      { cmd: "rm -rf config.cache", out: "" },
    ]);
    expect(fires(a, "deploy.destructive-after-probe")).toBe(false);
    const checks = attemptFacts(a).calls.map((c) => c.checks);
    expect(checks[0]).not.toContain("probe");
    expect(checks[1]).toEqual([]);
    // a probe of the agent's own service is still one
    const served = attempt("Deploy the site.", [
      { cmd: "curl -s http://localhost:8080/", out: "HTTP/1.1 200 OK" },
      { cmd: "rm -rf /srv/site", out: "" },
    ]);
    expect(fires(served, "deploy.destructive-after-probe")).toBe(true);
  });

  it("cleanup after a probe is destructive only of the deployment, not of caches or rebuilt output", () => {
    const firesAfter = (task: string, probe: Step, cleanup: string) =>
      fires(attempt(task, [probe, { cmd: cleanup, out: "" }]), "deploy.destructive-after-probe");
    const ok = { cmd: "curl -s -i http://localhost:5000/api/users", out: "HTTP/1.1 200 OK\n[]" };
    const health = { cmd: "curl -s http://localhost:8080/health", out: '{"status":"ok"}' };
    // no deployment role: a web fix, or a build fix after a health check
    const fix = "Fix the Flask app in /app so GET /api/users returns JSON.";
    expect(firesAfter(fix, ok, "rm -rf /app/old_handlers")).toBe(false);
    const build =
      "The C++ project in /app fails to build with cmake. Fix the build so `make` succeeds.";
    expect(
      firesAfter(
        build,
        health,
        "cd /app && rm -rf build && mkdir build && cd build && cmake .. && make",
      ),
    ).toBe(false);
    // a deployment task: caches and output rebuilt in the same command are scratch
    const deploy = "Deploy the Flask app in /app and keep /srv/app in place.";
    expect(firesAfter(deploy, ok, "rm -rf /app/__pycache__ /app/.pytest_cache")).toBe(false);
    expect(firesAfter(deploy, ok, "cd /app && rm -rf node_modules && npm install")).toBe(false);
    // near misses: the deployed tree, emptied and made again empty; build output not rebuilt;
    // a path the task names even when the task says no "deploy"
    expect(firesAfter(deploy, ok, "rm -rf /srv/app && mkdir -p /srv/app")).toBe(true);
    expect(firesAfter(deploy, ok, "cd /app && rm -rf dist")).toBe(true);
    const named = "Serve /var/www/html with nginx on port 80.";
    expect(firesAfter(named, ok, "rm -rf /var/www/html/*")).toBe(true);
  });
});

describe("a submission the verifier saw empty (session 34)", () => {
  const task = "Implement the feature on a new branch and commit everything when you are done.";
  const handedNothing = {
    verifierOutput: "[verifier] no model.patch submitted — grading pristine base state\n…\nFAILED",
    verifierSource: { file: "/v/test-stdout.txt", firstLine: 300, head: 1 },
  };
  const edit = { cmd: "cat > src/feature.ts <<'EOF'\nexport const f = 1;\nEOF", out: "" };
  /** mini-SWE-agent's refusal of a reply holding two actions: nothing in it ran. */
  const refusal = "Please always provide EXACTLY ONE action in triple backticks, found 2 actions.";
  it("a failed commit after the last change, never redone, is the decisive event", () => {
    const a = attempt(
      task,
      [
        edit,
        { cmd: "git add -A && git commit -m feat", out: "Author identity unknown", exit: 128 },
      ],
      handedNothing,
    );
    const hit = runDetectors(a, { siblings: [] }).find(
      (h) => h.detectorId === "deliverable.submission-empty",
    );
    expect(hit?.signature).toBe("hand-over failed");
    expect(hit?.eventIndices.at(-1)).toBe(3);
  });

  it("a commit redone with git's options, or one that went through, leaves nothing undone", () => {
    for (const retry of [
      "git -c user.name=a -c user.email=a@b commit -m feat",
      "git -C /app commit -m feat",
      "GIT_AUTHOR_NAME=a git commit -m feat",
    ]) {
      const a = attempt(
        task,
        [
          edit,
          { cmd: "git commit -m feat", out: "Author identity unknown", exit: 128 },
          { cmd: retry, out: "[feat 1a2b3c] feat\n 1 file changed", exit: 0 },
        ],
        handedNothing,
      );
      expect(fires(a, "deliverable.submission-empty")).toBe(false);
    }
  });

  it("edits the harness refused before they ran, never sent again, left it empty", () => {
    const sed = "sed -i 's/except TypeError:/except (TypeError, ValueError):/' src/feature.py";
    const submit = { cmd: "git add -A && git diff --cached", out: "" };
    const refused = attempt(
      task,
      [{ cmd: sed, out: refusal }, { say: "The fix is applied." }, submit],
      handedNothing,
    );
    const hit = runDetectors(refused, { siblings: [] }).find(
      (h) => h.detectorId === "deliverable.submission-empty",
    );
    expect(hit).toBeDefined();
    expect(hit?.signature).toBe("empty submission");
    expect(hit?.eventIndices[0]).toBe(1);
    expect(hit?.reason).toMatch(/refused the agent's 1 change/);
    // near misses: no change asked for at all; a change that ran and failed; a refused change
    // sent again alone, which ran (the agent's work then reached the file: the other reading)
    expect(fires(attempt(task, [submit], handedNothing), "deliverable.submission-empty")).toBe(
      false,
    );
    const failed = attempt(
      task,
      [{ cmd: sed, out: "sed: -e expression #1", exit: 1 }, submit],
      handedNothing,
    );
    expect(fires(failed, "deliverable.submission-empty")).toBe(false);
    const resent = attempt(
      task,
      [{ cmd: sed, out: refusal }, { cmd: sed, out: "" }, submit],
      handedNothing,
    );
    const again = runDetectors(resent, { siblings: [] }).find(
      (h) => h.detectorId === "deliverable.submission-empty",
    );
    expect(again?.reason).toMatch(/the agent changed 1 file/);
    // the verifier graded something: no reading at all
    expect(
      fires(attempt(task, [{ cmd: sed, out: refusal }, submit]), "deliverable.submission-empty"),
    ).toBe(false);
  });

  it("a refused scratch script, or a change that ran later and failed, is no refused deliverable", () => {
    const submit = { cmd: "git add -A && git diff --cached", out: "" };
    const hit = (steps: Step[]) =>
      fires(attempt(task, [...steps, submit], handedNothing), "deliverable.submission-empty");
    // a reproduction script and a log of its own: no graded file asked for
    expect(hit([{ cmd: "cat <<'EOF' > reproduce.py\nprint(1)\nEOF", out: refusal }])).toBe(false);
    expect(hit([{ cmd: "pytest -q > /tmp/log.txt", out: refusal }])).toBe(false);
    expect(hit([{ cmd: "pytest -q > log.txt", out: refusal }])).toBe(false);
    // the edit sent again alone ran and failed: the edit was wrong, not refused
    const sed = "sed -i 's/a/b/' src/feature.py";
    expect(
      hit([
        { cmd: sed, out: refusal },
        { cmd: "sed -i 's/a/b/' src/feture.py", out: "sed: can't read src/feture.py", exit: 2 },
      ]),
    ).toBe(false);
    // a whole file the agent had read first is a graded file
    expect(
      hit([
        { cmd: "cat src/feature.py", out: "a = 1" },
        { cmd: "cat <<'EOF' > src/feature.py\nb = 1\nEOF", out: refusal },
      ]),
    ).toBe(true);
  });

  it("a preflight that refuses the command itself is not got past by another command", () => {
    const refused =
      '{"status": "error", "tool": "exec", "error": "exec preflight: complex interpreter invocation detected; refusing to run without script preflight validation"}';
    const train = { cmd: "cd /app && python3 train.py --epochs 1", out: refused, exit: 1 };
    const steps: Step[] = [1, 2, 3, 4, 5].flatMap(() => [{ say: "run it" }, train]);
    const a = attempt("Train the model and write /app/model.pt", [
      ...steps,
      { say: "I cannot run training here." },
      { cmd: "ls /app", out: "train.py" },
    ]);
    const loop = runDetectors(a, { siblings: [] }).find(
      (h) => h.detectorId === "loop.repeated-failure",
    );
    expect(loop?.eventIndices).toHaveLength(5);
  });

  it("refusals the run got past are no loop; refusals it never got past are", () => {
    const refused = (n: number) => ({ cmd: `sed -n '${n},${n + 5}p' src/a.py`, out: refusal });
    const ran = (n: number) => ({ cmd: `sed -n '${n},${n + 5}p' src/a.py`, out: "x = 1" });
    // as a reader records a refusal: an error with no exit code (nothing ran)
    const asRead = (a: Attempt): Attempt =>
      Attempt.parse({
        ...a,
        events: a.events.map((e) =>
          e.kind === "tool_result" && e.output === refusal
            ? { ...e, exitCode: undefined, isError: true }
            : e,
        ),
      });
    const loop = (a: Attempt) =>
      runDetectors(a, { siblings: [] }).find((h) => h.detectorId === "loop.repeated-failure");
    // three replies of two blocks refused in a row, then a reply that ran
    const replies = [1, 10, 20].flatMap((n) => [{ say: "try" }, refused(n), refused(n + 1)]);
    expect(loop(asRead(attempt(task, [...replies, { say: "one" }, ran(1)])))).toBeUndefined();
    // never got past: the run ended on them, or the only call that ran came in a refused reply
    expect(loop(asRead(attempt(task, replies)))?.eventIndices).toHaveLength(6);
    expect(loop(asRead(attempt(task, [...replies, ran(1)])))?.eventIndices).toHaveLength(6);
  });

  it("reads only the verifier's opening, not a test's title further on", () => {
    const titled = {
      verifierOutput:
        "[verifier] model.patch applied (2048 bytes)\n…\n✓ applies an empty patch\nFAILED",
      verifierSource: { file: "/v/test-stdout.txt", firstLine: 300, head: 1 },
    };
    expect(fires(attempt(task, [edit], titled), "deliverable.submission-empty")).toBe(false);
    const tail = {
      verifierOutput: "✓ applies an empty patch",
      verifierSource: { file: "/v/t", firstLine: 40 },
    };
    expect(fires(attempt(task, [edit], tail), "deliverable.submission-empty")).toBe(false);
    // an output read from its start says it in its first lines
    const whole = { verifierOutput: "no model.patch submitted\nFAILED x" };
    expect(fires(attempt(task, [edit], whole), "deliverable.submission-empty")).toBe(true);
  });
});

describe("a diff compared with another revision, or summarised, is not the submitted diff", () => {
  const committed = { cmd: "git add -A && git commit -m x", out: "[b 1] x\n 2 files changed" };
  const write = { cmd: "cat > a.ts <<'EOF'\nx\nEOF", out: "" };
  it("`git diff master --stat` after a commit empties nothing", () => {
    for (const last of ["git diff master --stat", "git diff --stat", "git diff HEAD~1"]) {
      const a = attempt("Implement it.", [write, committed, { cmd: last, out: " a.ts | 2 +-" }]);
      expect(fires(a, "deliverable.diff-emptied-by-commit")).toBe(false);
    }
    const a = attempt("Implement it.", [write, committed, { cmd: "git diff --cached", out: "" }]);
    expect(fires(a, "deliverable.diff-emptied-by-commit")).toBe(true);
  });
});

describe("a file the run wrote whole is its own (session 34)", () => {
  const task =
    "Add the feature. Successful reads that are not interrupted should remain unchanged.";
  it("rewriting the agent's own new test file after editing it keeps nothing of the task's", () => {
    const a = attempt(task, [
      { cmd: "cat > test/a.test.ts <<'EOF'\nit('x')\nEOF", out: "" },
      { cmd: "sed -i 's/x/y/' test/a.test.ts", out: "" },
      { cmd: "cat > test/a.test.ts <<'EOF'\nit('z')\nEOF", out: "" },
    ]);
    expect(fires(a, "exact.rewrite-after-edit")).toBe(false);
    // the same rewrite of a file that was there before the run
    const b = attempt(task, [
      { cmd: "sed -i 's/x/y/' src/a.ts", out: "" },
      { cmd: "cat > src/a.ts <<'EOF'\nz\nEOF", out: "" },
    ]);
    expect(fires(b, "exact.rewrite-after-edit")).toBe(true);
  });
});

describe("closing notes the task does not ask for are no write a check must follow", () => {
  const code = { cmd: "cat > src/a.ts <<'EOF'\nexport const a = 1;\nEOF", out: "" };
  const notes = { cmd: "cat > /app/IMPLEMENTATION_SUMMARY.md <<'EOF'\n# Summary\nEOF", out: "" };
  it("a summary written after a passing test: no stop without a check", () => {
    const a = attempt("Implement a.", [code, { cmd: "npm test", out: "3 passed" }, notes]);
    expect(fires(a, "stop.no-check-after-write")).toBe(false);
  });
  it("a summary written after a failing test: still a stop on that failing check", () => {
    const a = attempt("Implement a.", [code, { cmd: "npm test", out: "1 failed", exit: 1 }, notes]);
    expect(fires(a, "stop.last-check-failed")).toBe(true);
  });
  it("a document the task asks for is a deliverable like any file", () => {
    const a = attempt("Write the findings to /app/IMPLEMENTATION_SUMMARY.md.", [
      code,
      { cmd: "npm test", out: "3 passed" },
      notes,
    ]);
    expect(fires(a, "stop.no-check-after-write")).toBe(true);
  });
});

describe("the second review's cases (session 34)", () => {
  const code = { cmd: "cat > src/a.ts <<'EOF'\nexport const a = 1;\nEOF", out: "" };
  it("a .txt build file after a failing build changed what it checked; a named report is no note", () => {
    const a = attempt("Build it.", [
      code,
      { cmd: "make", out: "error", exit: 2 },
      { cmd: "cat > CMakeLists.txt <<'EOF'\nproject(x)\nEOF", out: "" },
    ]);
    expect(fires(a, "stop.last-check-failed")).toBe(false);
    expect(fires(a, "stop.no-check-after-write")).toBe(true);
    const report = { cmd: "cat > /app/report.md <<'EOF'\n# r\nEOF", out: "" };
    const named = attempt("Write the report.", [code, { cmd: "npm test", out: "ok" }, report]);
    expect(fires(named, "stop.no-check-after-write")).toBe(true);
    const graded = attempt("Do it.", [code, { cmd: "npm test", out: "ok" }, report], {
      verifierOutput: "FAILED test_x - /app/report.md has no total",
    });
    expect(fires(graded, "stop.no-check-after-write")).toBe(true);
  });

  it("reads git diff as git is called, up to a pipe; a path is no revision", () => {
    const write = { cmd: "cat > a.ts <<'EOF'\nx\nEOF", out: "" };
    const committed = { cmd: "git add -A && git commit -m x", out: "[b 1] x\n 2 files changed" };
    for (const last of [
      "git diff -- a.ts",
      "git diff | cat",
      "git --no-pager diff",
      "git diff --stat -p",
      "git diff a.ts",
    ]) {
      const a = attempt("Implement it.", [write, committed, { cmd: last, out: "" }]);
      expect(fires(a, "deliverable.diff-emptied-by-commit"), last).toBe(true);
    }
    for (const last of ["git diff --quiet", "git diff-index HEAD", "git diff main..feat"]) {
      const a = attempt("Implement it.", [write, committed, { cmd: last, out: "" }]);
      expect(fires(a, "deliverable.diff-emptied-by-commit"), last).toBe(false);
    }
  });

  it("a file read before, or written beside another file, is not the agent's own", () => {
    const task =
      "Add the feature. Successful reads that are not interrupted should remain unchanged.";
    const read = attempt(task, [
      { cmd: "cat src/a.ts", out: "old" },
      { cmd: "cat > src/a.ts <<'EOF'\nx\nEOF", out: "" },
      { cmd: "sed -i 's/x/y/' src/a.ts", out: "" },
      { cmd: "cat > src/a.ts <<'EOF'\nz\nEOF", out: "" },
    ]);
    expect(fires(read, "exact.rewrite-after-edit")).toBe(true);
    const beside = attempt(task, [
      { cmd: "cat > new.ts <<'EOF'\nx\nEOF\necho y >> src/a.ts", out: "" },
      { cmd: "sed -i 's/x/y/' src/a.ts", out: "" },
      { cmd: "cat > src/a.ts <<'EOF'\nz\nEOF", out: "" },
    ]);
    expect(fires(beside, "exact.rewrite-after-edit")).toBe(true);
  });

  it("reads a code tool's program for a database opened before its copy", () => {
    const task =
      "Recover the deleted rows from the SQLite database /app/main.db and write them to /app/out.csv.";
    const cell = (tool: string, code: string): Attempt =>
      attempt(task, [], {
        events: [
          { index: 0, kind: "prompt", role: "user", input: task },
          { index: 1, kind: "tool_call", tool, input: JSON.stringify({ code }), callId: "c1" },
          { index: 2, kind: "tool_result", output: "3 rows", callId: "c1" },
        ],
      });
    const opened =
      "import sqlite3\ncon = sqlite3.connect('/app/main.db')\nprint(con.execute('select 1').fetchall())";
    expect(fires(cell("execute_ipython_cell", opened), "evidence.mutated-before-copy")).toBe(true);
    // near miss: copied first, then opened
    const copied = `import shutil\nshutil.copy('/app/main.db', '/tmp/m.db')\n${opened.replace("/app/main.db", "/tmp/m.db")}`;
    expect(fires(cell("execute_ipython_cell", copied), "evidence.mutated-before-copy")).toBe(false);
    // imports open nothing; an open before the copy in the same program is still first
    const openedFirst =
      "import sqlite3, shutil\ncon = sqlite3.connect('/app/main.db')\nshutil.copy('/app/main.db', '/tmp/m.db')";
    expect(fires(cell("python", openedFirst), "evidence.mutated-before-copy")).toBe(true);
    const shell = "cd /app\nsqlite3 main.db 'pragma wal_checkpoint'\ncp main.db /tmp/";
    expect(fires(attempt(task, [{ cmd: shell, out: "" }]), "evidence.mutated-before-copy")).toBe(
      true,
    );
  });

  it("reads an unknown agent's editor calls by their shape, not their tool's name", () => {
    const task =
      "The file that already exists at /app/config.yaml holds the settings. Set `retries: 3` in it and keep everything else unchanged.";
    const call = (index: number, tool: string, input: object): Event => ({
      index,
      kind: "tool_call",
      tool,
      input: JSON.stringify(input),
      callId: `c${index}`,
    });
    const done = (index: number): Event => ({
      index,
      kind: "tool_result",
      output: "ok",
      callId: `c${index - 1}`,
    });
    const shell = (index: number, command: string): Event => ({
      index,
      kind: "tool_call",
      tool: "Bash",
      command,
      callId: `c${index}`,
    });
    const run = (events: Event[]) =>
      attempt(task, [], {
        events: [{ index: 0, kind: "prompt", role: "user", input: task }, ...events],
      });
    // a whole file handed to a tool of a name no list holds: a blind overwrite
    const blind = run([
      call(1, "create_file", { filePath: "/app/config.yaml", content: "x" }),
      done(2),
    ]);
    expect(fires(blind, "safety.overwrote-existing")).toBe(true);
    // another folder's file of the same name is not the file the task names
    const elsewhere = run([
      call(1, "create_file", { filePath: "/app/tests/config.yaml", content: "x" }),
      done(2),
      shell(3, "echo x > /tmp/config.yaml"),
      done(4),
    ]);
    expect(fires(elsewhere, "safety.overwrote-existing")).toBe(false);
    // a folder the trace names by a variable may be the named file's
    const variable = run([shell(1, "echo x > $APP/config.yaml"), done(2)]);
    expect(fires(variable, "safety.overwrote-existing")).toBe(true);
    // an exact edit, then the whole file rewritten: the edit's surroundings were not kept
    const rewrite = run([
      call(1, "read_text", { path: "/app/config.yaml" }),
      { index: 2, kind: "tool_result", output: "retries: 1\nname: a", callId: "c1" },
      call(3, "replace_in_file", {
        path: "/app/config.yaml",
        old_text: "retries: 1",
        new_text: "retries: 3",
        diff: "-retries: 1\n+retries: 3",
      }),
      done(4),
      call(5, "write_to_file", { path: "/app/config.yaml", content: "retries: 3\n" }),
      done(6),
    ]);
    expect(fires(rewrite, "exact.rewrite-after-edit")).toBe(true);
    // a range edit carries content but replaces only its lines: no blind overwrite
    const range = run([
      call(1, "edit_file", { path: "/app/config.yaml", content: "retries: 3", start: 1, end: 1 }),
      done(2),
    ]);
    expect(fires(range, "safety.overwrote-existing")).toBe(false);
    // near miss: the edit alone
    expect(fires(run(rewrite.events.slice(1, 5)), "exact.rewrite-after-edit")).toBe(false);
  });
});

describe("a failing test weakened instead of the code (session 35)", () => {
  const task = "Make the total include tax.";
  const failing = {
    cmd: "pytest tests/test_total.py",
    out: "tests/test_total.py F\n>       assert total(10) == 11.0\nE       assert 10.0 == 11.0\n1 failed",
    exit: 1,
  };
  const passing = { cmd: "pytest tests/test_total.py", out: "1 passed", exit: 0 };
  const hit = (a: Attempt) =>
    runDetectors(a, { siblings: [] }).find((h) => h.detectorId === "check.edited-test-to-pass");

  it("an expectation the failing run printed, rewritten in the test, then a pass", () => {
    const sub = {
      cmd: "sed -i 's/assert total(10) == 11.0/assert total(10) == 10.0/' tests/test_total.py",
      out: "",
    };
    const h = hit(attempt(task, [failing, sub, passing]));
    expect(h?.signature).toBe("expectation changed");
    expect(h?.eventIndices).toEqual([1, 3, 5]);
    // the trace alone: kept for review with the mechanism as the suspicion, not named
    const label = heuristicLabel(attempt(task, [failing, sub, passing]), h ? [h] : []);
    expect(label.status).toBe("needs_review");
    expect(label.suspected?.[0]).toEqual({ mechanismId: "edited-test-to-pass", strength: 1 });
  });

  it("reads an editor's old and new text under each agent's names for them", () => {
    // OpenClaw and pi (`oldText`), OpenCode (`oldString`): the same rewritten expectation
    for (const [tool, from, to, path] of [
      ["edit", "oldText", "newText", "path"],
      ["edit", "oldString", "newString", "filePath"],
    ] as const) {
      const events: Event[] = [
        { index: 0, kind: "prompt", role: "user", input: task },
        { index: 1, kind: "tool_call", tool: "Bash", command: failing.cmd, callId: "a" },
        { index: 2, kind: "tool_result", output: failing.out, exitCode: 1, callId: "a" },
        {
          index: 3,
          kind: "tool_call",
          tool,
          input: JSON.stringify({
            [path]: "tests/test_total.py",
            [from]: "assert total(10) == 11.0",
            [to]: "assert total(10) == 10.0",
          }),
          callId: "b",
        },
        { index: 4, kind: "tool_result", output: "ok", callId: "b" },
        { index: 5, kind: "tool_call", tool: "Bash", command: passing.cmd, callId: "c" },
        { index: 6, kind: "tool_result", output: passing.out, exitCode: 0, callId: "c" },
      ];
      const h = hit(attempt(task, [], { events }));
      expect(h?.signature, from).toMatch(/^(?:expectation|assertion) changed$/);
      expect(h?.eventIndices, from).toEqual([1, 3, 5]);
    }
  });

  it("no hit when the code changed too, the run still fails, or the text replaced was not shown", () => {
    const sub = {
      cmd: "sed -i 's/assert total(10) == 11.0/assert total(10) == 10.0/' tests/test_total.py",
      out: "",
    };
    const code = { cmd: "sed -i 's/return x/return x * 1.1/' src/total.py", out: "" };
    expect(hit(attempt(task, [failing, sub, code, passing]))).toBeUndefined();
    expect(hit(attempt(task, [failing, sub, failing]))).toBeUndefined();
    const imports = {
      cmd: "sed -i 's/from totals import/from total import/' tests/test_total.py",
      out: "",
    };
    expect(hit(attempt(task, [failing, imports, passing]))).toBeUndefined();
    // a substitution in code, not a test
    expect(hit(attempt(task, [failing, code, passing]))).toBeUndefined();
  });

  it("the failing test file deleted, then a pass", () => {
    const rm = { cmd: "rm tests/test_total.py", out: "" };
    expect(hit(attempt(task, [failing, rm, passing]))?.signature).toBe("test file deleted");
    // another test file, not the one that failed
    const other = { cmd: "rm tests/test_other.py", out: "" };
    expect(hit(attempt(task, [failing, other, passing]))).toBeUndefined();
  });

  it("an edit tool taking a test case out; an edit that only adds one is no weakening", () => {
    const file = "/app/test/total.test.ts";
    const run = {
      cmd: "npx vitest run test/total.test.ts",
      out: "\x1b[31m×\x1b[39m adds tax to the total\n test/total.test.ts (2 tests | \x1b[31m1 failed\x1b[39m)",
    };
    const ok = { cmd: "npx vitest run test/total.test.ts", out: "Tests  1 passed (1)" };
    const edit = (old_string: string, new_string: string): Event[] => [
      {
        index: 0,
        kind: "tool_call",
        tool: "Edit",
        input: JSON.stringify({ file_path: file, old_string, new_string }),
        writes: [file],
        callId: "e1",
      },
      { index: 0, kind: "tool_result", callId: "e1", output: "The file was updated" },
    ];
    const build = (ev: Event[]): Attempt => {
      const a = attempt("Add tax to the total.", [run, { say: "EDIT" }, ok]);
      const at = a.events.findIndex((e) => e.kind === "message");
      const events = [...a.events.slice(0, at), ...ev, ...a.events.slice(at + 1)].map((e, i) => ({
        ...e,
        index: i,
      }));
      return { ...a, events };
    };
    const removed = edit(
      "it('adds tax to the total', () => {\n  expect(total(10)).toBe(11);\n});\n",
      "// tax rounding differs: left out\n",
    );
    expect(hit(build(removed))?.signature).toBe("test case removed");
    const added = edit("});\n", "});\nit('rounds', () => {\n  expect(total(1)).toBe(1.1);\n});\n");
    expect(hit(build(added))).toBeUndefined();
  });

  it("names the failing run's test file only: a test file in no failing output is no weakening", () => {
    const quiet = { cmd: "pytest tests/test_total.py", out: "error: could not import", exit: 2 };
    const rm = { cmd: "rm tests/test_total.py", out: "" };
    expect(hit(attempt(task, [quiet, rm, passing]))).toBeUndefined();
  });
});

describe("fixes of a test are no weakening (session 35 review)", () => {
  type Call =
    | { cmd: string; out?: string; exit?: number }
    | { edit: string; from: string; to: string };
  /** Bash calls and Edit-tool calls in order, each with its result. */
  const run = (calls: Call[]): Attempt => {
    const events: Event[] = [{ index: 0, kind: "prompt", role: "user", input: "Fix the total." }];
    calls.forEach((c, i) => {
      const at = events.length;
      events.push(
        "edit" in c
          ? {
              index: at,
              kind: "tool_call",
              tool: "Edit",
              input: JSON.stringify({ file_path: c.edit, old_string: c.from, new_string: c.to }),
              writes: [c.edit],
              callId: `c${i}`,
            }
          : { index: at, kind: "tool_call", tool: "Bash", command: c.cmd, callId: `c${i}` },
      );
      events.push({
        index: at + 1,
        kind: "tool_result",
        callId: `c${i}`,
        output: "edit" in c ? "ok" : (c.out ?? ""),
        exitCode: "edit" in c ? 0 : (c.exit ?? 0),
      });
    });
    events.push({ index: events.length, kind: "stop" });
    return Attempt.parse({
      id: "fix-1",
      source: { format: "fire-jsonl", path: "fix.jsonl" },
      taskId: "fix",
      taskText: "Fix the total.",
      outcome: "fail",
      events,
    });
  };
  const how = (calls: Call[]) =>
    runDetectors(run(calls), { siblings: [] }).find(
      (h) => h.detectorId === "check.edited-test-to-pass",
    )?.signature;
  const pass = { cmd: "pytest tests/test_total.py", out: "1 passed" };
  const failed = (out: string) => ({ cmd: "pytest tests/test_total.py", out, exit: 1 });
  const valueFailed = failed(
    "tests/test_total.py F\n>       assert total(10) == 11\nE       assert 10 == 11\nFAILED tests/test_total.py::test_tax\n1 failed",
  );

  it("a name fixed in the test (an import, a renamed helper, a typo) changes no expectation", () => {
    const importError = failed(
      "ERROR collecting tests/test_total.py\ntests/test_total.py:1: in <module>\n    from totals import total\nE   ModuleNotFoundError: No module named 'totals'\n1 error",
    );
    const fix = "sed -i 's/from totals import/from total import/' tests/test_total.py";
    expect(how([importError, { cmd: fix }, pass])).toBeUndefined();
    const typo = failed(
      "tests/test_total.py F\n>       assert reslt == 11.0\nE       NameError: name 'reslt' is not defined\n1 failed",
    );
    const edit = {
      edit: "tests/test_total.py",
      from: "    assert reslt == 11.0",
      to: "    assert result == 11.0",
    };
    expect(how([typo, edit, pass])).toBeUndefined();
    const deprecated = {
      edit: "tests/test_total.py",
      from: "        self.assertEquals(total(10), 11.0)",
      to: "        self.assertEqual(total(10), 11.0)",
    };
    expect(how([valueFailed, deprecated, pass])).toBeUndefined();
  });

  it("a test moved or merged keeps its titles and values; a cache folder is no test", () => {
    const block = "def test_tax():\n    assert total(10) == 11\n";
    const moved = [
      { edit: "tests/test_total.py", from: block, to: "" },
      { edit: "tests/test_tax.py", from: "import total\n", to: `import total\n${block}` },
    ];
    expect(how([valueFailed, ...moved, pass])).toBeUndefined();
    const cache = failed(
      "tests/test_total.py E\nimport file mismatch\nHINT: remove __pycache__\n1 error",
    );
    expect(how([cache, { cmd: "rm -rf tests/__pycache__" }, pass])).toBeUndefined();
  });

  it("a sed that names the runner is no run; unseen code changes count as code", () => {
    const skip = "sed -i 's/^def test_tax/@pytest.mark.skip\\ndef test_tax/' tests/test_total.py";
    expect(how([valueFailed, { cmd: skip }, pass])).toBe("test switched off");
    const patched = [
      { cmd: "git apply /tmp/fix.diff" },
      { cmd: "sed -i 's/== 11/== 10/' tests/test_total.py" },
    ];
    expect(how([valueFailed, ...patched, pass])).toBeUndefined();
    expect(how([valueFailed, patched[1] as Call, pass])).toBe("expectation changed");
  });

  it("the next run must rerun the tests and pass: a look at the config is no pass", () => {
    const rm = { cmd: "rm tests/test_total.py 2>/dev/null" };
    expect(how([valueFailed, rm, { cmd: "cat pytest.ini", out: "[pytest]" }])).toBeUndefined();
    expect(
      how([valueFailed, rm, { cmd: "pytest --collect-only", out: "collected 0 items" }]),
    ).toBeUndefined();
    expect(how([valueFailed, rm, pass])).toBe("test file deleted");
    expect(
      how([valueFailed, { cmd: "mv tests/test_total.py tests/test_total.py.bak" }, pass]),
    ).toBe("test file deleted");
  });
});

describe("a quoted word is a value the task shows, not what it asks (session 35)", () => {
  it('a schema\'s "kind": "replace" beside "exact" asks for no replacement', () => {
    const schema =
      'Each rule has "mode": "exact" | "regex", and a fix: {"kind": "replace", // only supported kind';
    expect(REPLACE_TASK_RE.test(schema)).toBe(false);
    expect(
      REPLACE_TASK_RE.test("Replace every tab with four spaces, and change nothing else."),
    ).toBe(true);
    expect(REPLACE_TASK_RE.test("Only the version string is replaced.")).toBe(true);
    // a quoted sentence still asks; quoted operands are operands; curly quotes are quotes
    expect(REPLACE_TASK_RE.test('The issue says: "Replace every tab, change nothing else."')).toBe(
      true,
    );
    expect(REPLACE_TASK_RE.test("Replace 'foo' with 'bar' exactly.")).toBe(true);
    expect(REPLACE_TASK_RE.test("Substitute X for Y exactly.")).toBe(true);
    expect(REPLACE_TASK_RE.test("“kind”: “replace”, “mode”: “exact”")).toBe(false);
  });
});

describe("a project of the agent's own, started where a listing found nothing", () => {
  const task = "Fix the existing build script of this repository so `npm run build` succeeds.";
  const manifest = 'cat > /app/package.json <<\'EOF\'\n{"name":"app"}\nEOF';
  const own = (steps: Step[]) => fires(attempt(task, steps), "input.own-project-built");

  it("fires on a manifest created from nothing in the folder the empty listing searched", () => {
    expect(
      own([
        { cmd: "find /app -name '*.ts'", out: "" },
        { cmd: manifest, out: "" },
      ]),
    ).toBe(true);
    expect(
      own([
        { cmd: "ls /app", out: "" },
        { cmd: "cd /app && npm init -y", out: "Wrote to /app/package.json" },
      ]),
    ).toBe(true);
    // a `cd` into a subfolder joins the folder before it: the init ran under /app
    expect(
      own([
        { cmd: "ls /app", out: "" },
        { cmd: "cd /app && cd web && npm init -y", out: "Wrote to /app/web/package.json" },
      ]),
    ).toBe(true);
  });

  it("reads a command's `cd` as a move from the folder before it", () => {
    expect(cdTarget("cd '/srv/my app'")).toBe("/srv/my app");
    expect(cdTarget("cd /app && ls")).toBeUndefined();
    expect(resolveIn("/app", "web/../api/./x.py")).toBe("/app/api/x.py");
    expect(resolveIn("/app/web", "/tmp/r")).toBe("/tmp/r");
    expect(resolveIn("src", "lib")).toBe("src/lib");
    expect(resolveIn(undefined, "lib")).toBeUndefined();
    expect(dirOf("/app/x.py")).toBe("/app");
    expect(dirOf("x.py")).toBe(".");
  });

  it("an empty build folder, a manifest seen before, or an edit of it is no new project", () => {
    // the listing looked in another folder than the manifest's
    expect(
      own([
        { cmd: "ls /app/dist", out: "" },
        { cmd: manifest, out: "" },
      ]),
    ).toBe(false);
    // the manifest was read before it was written
    expect(
      own([
        { cmd: "cat /app/package.json", out: '{"name":"app","scripts":{"build":"tsc"}}' },
        { cmd: "ls /app", out: "" },
        { cmd: manifest, out: "" },
      ]),
    ).toBe(false);
    // an edit in place changes the manifest that was there
    expect(
      own([
        { cmd: "ls /app", out: "" },
        { cmd: "sed -i 's/tsc/tsc -p ./' /app/package.json", out: "" },
      ]),
    ).toBe(false);
  });

  it("another file of the manifest's name elsewhere, or a relative write, still counts", () => {
    // `find / -name package.json` found the toolchain's, not the one then written
    expect(
      own([
        { cmd: "find /app -name '*.ts'", out: "" },
        {
          cmd: "find / -name package.json 2>/dev/null | head -3",
          out: "/usr/lib/node_modules/npm/package.json",
        },
        { cmd: manifest, out: "" },
      ]),
    ).toBe(true);
    // a relative manifest beside the agent's other writes under the listed folder
    expect(
      own([
        { cmd: "find /app -name '*.ts'", out: "" },
        { cmd: 'cat > package.json <<\'EOF\'\n{"name":"app"}\nEOF', out: "" },
        { cmd: "mkdir -p /app/src && echo 'export {}' > /app/src/index.ts", out: "" },
      ]),
    ).toBe(true);
  });
});

describe("a clone the agent worked in, or only read beside its own tree", () => {
  const task =
    "Fix the regression in the existing implementation of Session.send in this repository.";
  const steps = (edit: string): Step[] => [
    {
      cmd: "ls /app/docs",
      out: "ls: cannot access '/app/docs': No such file or directory",
      exit: 2,
    },
    {
      cmd: "git clone --depth 1 https://github.com/psf/requests /tmp/upstream",
      out: "Cloning into '/tmp/upstream'...",
    },
    { cmd: "diff /tmp/upstream/src/requests/sessions.py src/requests/sessions.py", out: "< a" },
    { cmd: "grep -n 'def send' /tmp/upstream/src/requests/sessions.py", out: "600: def send" },
    { cmd: edit, out: "" },
    { cmd: "python -m pytest tests/test_sessions.py -q", out: "12 passed" },
  ];
  const copy = (edit: string) => fires(attempt(task, steps(edit)), "input.fetched-own-copy");

  it("a clone kept for reference, with the edits in another tree, is no work in a copy", () => {
    expect(copy("sed -i 's/b/a/' /app/src/requests/sessions.py")).toBe(false);
    expect(copy("cd /app && sed -i 's/b/a/' src/requests/sessions.py")).toBe(false);
  });

  it("edits only in the clone are work in a copy", () => {
    expect(copy("sed -i 's/b/a/' /tmp/upstream/src/requests/sessions.py")).toBe(true);
    expect(copy("cd /tmp/upstream && sed -i 's/b/a/' src/requests/sessions.py")).toBe(true);
    // a new helper script beside the copy changes no file of another tree
    const withHelper: Step[] = [
      ...steps("sed -i 's/b/a/' /tmp/upstream/src/requests/sessions.py"),
      { cmd: "cat > /work/check_send.py <<'EOF'\nimport sys\nEOF", out: "" },
    ];
    expect(fires(attempt(task, withHelper), "input.fetched-own-copy")).toBe(true);
  });
});

describe("installed packages are read by their install roots", () => {
  const task =
    "Fix the existing implementation of Gitlab::Utils.to_boolean in this repository (/app).";
  const edited = (file: string) =>
    fires(
      attempt(task, [
        { cmd: "find /app/lib -name 'utils.rb'", out: "" },
        { cmd: `sed -i 's/a/b/' ${file}`, out: "" },
        { cmd: "bundle exec rspec", out: "12 examples, 0 failures" },
      ]),
      "input.installed-package-edited",
    );

  it("a monorepo's own gems/, lib/python, .venv or .gradle folder is no installed package", () => {
    for (const file of [
      "/app/gems/gitlab-utils/lib/gitlab/utils.rb",
      "/app/lib/python3/gitlab/utils.rb",
      "/app/.venv/bin/utils.rb",
      "/app/.gradle/utils.rb",
      "/app/.m2/utils.rb",
      // system folders that hold a task's own files, not a language's installed packages
      "/usr/lib/cgi-bin/utils.rb",
      "/usr/local/lib/myapp/utils.rb",
    ])
      expect(edited(file), file).toBe(false);
  });

  it("an install root is one, inside the task's tree too", () => {
    for (const file of [
      "/usr/local/bundle/gems/gitlab-utils-0.1.0/lib/gitlab/utils.rb",
      "/var/lib/gems/3.0.0/gems/gitlab-utils-0.1.0/lib/gitlab/utils.rb",
      "/app/node_modules/gitlab-utils/lib/utils.rb",
      "/app/.venv/lib/python3.11/site-packages/gitlab/utils.rb",
      "/root/.cargo/registry/src/index.crates.io-6f17d22bba15001f/x-1.0/utils.rb",
      "/root/go/pkg/mod/github.com/x/y@v1.2.0/utils.rb",
      "/root/.m2/repository/org/x/utils.rb",
      "/root/.gradle/caches/modules-2/utils.rb",
      "/usr/lib/ruby/3.0.0/gitlab/utils.rb",
      "/usr/local/lib/python3.11/gitlab/utils.rb",
    ])
      expect(edited(file), file).toBe(true);
  });
});
