import { describe, expect, it } from "vitest";
import { toolSummary } from "../../../src/core/compare/summary.js";
import type { Event } from "../../../src/core/model/attempt.js";

const call = (tool: string, input: string) => ({ kind: "tool_call", tool, input }) as Event;

describe("toolSummary", () => {
  it("summarises a non-shell call's arguments, not its JSON", () => {
    const input = JSON.stringify({ file_path: "/app/x.py", content: "a\nb\nc\n" });
    expect(toolSummary(call("Write", input))).toBe("Write file_path=/app/x.py content=(4 lines)");
  });

  it("summarises a huge input too, its long argument by its size", () => {
    const body = `${"x ".repeat(40)}\n`.repeat(200_000); // ~16 MB
    const input = JSON.stringify({ file_path: "/app/big.txt", content: body });
    const e = call("Write", input);
    expect(toolSummary(e)).toBe("Write file_path=/app/big.txt content=(200001 lines)");
    expect(toolSummary(e)).toBe("Write file_path=/app/big.txt content=(200001 lines)");
  });

  it("cuts input that is not JSON to its head", () => {
    const input = `${"word ".repeat(1_000_000)}`; // 5 MB on one line
    const s = toolSummary(call("Odd", input));
    expect(s).toBe(`Odd ${"word ".repeat(32).slice(0, 159)}…`);
  });

  it("marks a cut even when the head is all the text that fits", () => {
    const input = `short head${" ".repeat(2000)}tail`;
    expect(toolSummary(call("Odd", input))).toBe("Odd short head…");
  });
});
