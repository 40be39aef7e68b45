import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/core/ingest/verifier-tests.js";
import {
  callFailed,
  cleanOutput,
  isCheck,
  programNotFound,
} from "../../../src/core/mine/detectors/shell.js";
import { Attempt, type Event } from "../../../src/core/model/attempt.js";

/** One Bash call and its result, with no exit status unless given (ATIF keeps none). */
function one(command: string, output: string, exitCode?: number): { a: Attempt; call: Event } {
  const events: Event[] = [
    { index: 0, kind: "tool_call", tool: "Bash", command, callId: "c" },
    {
      index: 1,
      kind: "tool_result",
      callId: "c",
      output,
      ...(exitCode === undefined ? {} : { exitCode }),
    },
    { index: 2, kind: "stop" },
  ];
  const a = Attempt.parse({
    id: "o",
    source: { format: "fire-jsonl", path: "o.jsonl" },
    taskId: "o",
    taskText: "t",
    outcome: "fail",
    events,
  });
  return { a, call: a.events[0] as Event };
}

describe("a command's output read as a terminal shows it (session 35)", () => {
  it("colours do not hide a failure: `\\x1b[31m1 failed` is a failed run", () => {
    const { a, call } = one("npx vitest run", " Tests  \x1b[31m1 failed\x1b[39m | 14 passed (15)");
    expect(callFailed(a, call)).toBe(true);
    const ok = one("npx vitest run", " Tests  \x1b[32m15 passed\x1b[39m (15)");
    expect(callFailed(ok.a, ok.call)).toBe(false);
    // charset selection (`tput sgr0`) is an escape too
    expect(cleanOutput("\x1b(B\x1b[mFAILED x")).toBe("FAILED x");
  });

  it("a pty's `\\r\\r\\n` ends a line; a return before more text redraws it", () => {
    expect(plainText("1 failed in 0.1s\r\r\nnext")).toBe("1 failed in 0.1s\nnext");
    expect(plainText("10%\r50%\r100%\ndone")).toBe("100%\ndone");
    const { a, call } = one("pytest", "1 failed in 0.1s\r\r\n");
    expect(callFailed(a, call)).toBe(true);
  });

  it("a heredoc a `cat` only prints (a commit message) is no check; one fed to a program is", () => {
    const commit = "git commit -m \"$(cat <<'EOF'\nAdd validation and tests\nEOF\n)\"";
    expect(isCheck({ index: 0, kind: "tool_call", tool: "Bash", command: commit })).toBe(false);
    const fed = "cat <<EOF | python3\nprint(1)\nEOF";
    expect(isCheck({ index: 0, kind: "tool_call", tool: "Bash", command: fed })).toBe(true);
  });

  it("a program not found is read from the output's ends, whatever its size", () => {
    const huge = `${"line\tx\n".repeat(400_000)}bash: javac: command not found\n`;
    const { a, call } = one("javac T.java", huge, 1);
    expect(programNotFound(a, call)).toBe(true);
  });
});
