import { describe, expect, it } from "vitest";
import { capText } from "../../../src/core/ingest/text.js";
import { editMissingFromDiff } from "../../../src/core/mine/detectors/edit-not-delivered.js";
import { Attempt } from "../../../src/core/model/attempt.js";

describe("the capped output on shapes a review found (session 49)", () => {
  it("a diff just over the cap, cut through a file header, is read as the whole diff", () => {
    const F = "pkg/domains/python.py";
    const hunk = (p: string, n: number) =>
      `diff --git a/${p} b/${p}\nindex 1..2 100644\n--- a/${p}\n+++ b/${p}\n@@ -1 +1 @@\n${"-a\n+b\n".repeat(n)}`;
    // place F's header right after the head kept by the cap
    let pre = hunk("setup.py", 1);
    const headLen = 8000 - 2000 - `\n[… ${8001 - 2000} characters cut …]\n`.length;
    pre += `${"+".repeat(headLen - pre.length - 1)}\n`;
    const body = hunk(F, 1);
    let text = pre + body;
    text += `${"+b\n".repeat(Math.ceil((8001 - text.length) / 3))}`;
    text = text.slice(0, 8001);
    const { output, outputBytes } = capText(text, 8000);
    expect(output).not.toContain(`diff --git a/${F}`);
    const events = [
      { index: 0, kind: "prompt", role: "user", input: "Fix it." },
      { index: 1, kind: "tool_call", tool: "Bash", command: `cat ${F}`, callId: "r" },
      { index: 2, kind: "tool_result", callId: "r", output: "if node.strip():", exitCode: 0 },
      {
        index: 3,
        kind: "tool_call",
        tool: "Bash",
        command: `sed -i 's/if node.strip():/if node:/' ${F}`,
        callId: "s",
      },
      { index: 4, kind: "tool_result", callId: "s", output: "", exitCode: 0 },
      { index: 5, kind: "tool_call", tool: "Bash", command: "git diff", callId: "d" },
      { index: 6, kind: "tool_result", callId: "d", output, outputBytes, exitCode: 0 },
      { index: 7, kind: "stop" },
    ];
    const a = Attempt.parse({
      id: "u",
      source: { format: "fire-jsonl", path: "u.jsonl" },
      taskId: "u",
      taskText: "Fix it.",
      outcome: "fail",
      events,
    });
    expect(editMissingFromDiff.detect(a, {})).toEqual([]);
  });
  it("a cut through a surrogate pair leaves well-formed text", () => {
    const text = `${"😀".repeat(5000)}b`;
    const { output } = capText(text, 8000);
    expect((output as unknown as { isWellFormed(): boolean }).isWellFormed()).toBe(true);
  });
  it("held: an ASCII cut well over the cap keeps head, marker, tail within the cap", () => {
    const text = "é".repeat(20000);
    const { output, outputBytes } = capText(text, 8000);
    expect(output.length).toBeLessThanOrEqual(8000);
    expect(outputBytes).toBeGreaterThan(Buffer.byteLength(output));
  });
});
