import { describe, expect, it } from "vitest";
import { CUT_MARK, capText } from "../../../src/core/ingest/text.js";

describe("a long output is capped at its head and its tail", () => {
  const summary = "==== 4 passed, 146 errors in 31.46s ====";
  const long = `${"ERROR tests/test_a.py::test_x\n".repeat(400)}${summary}\n`;

  it("keeps the runner's closing summary, says how much was cut and stays within the cap", () => {
    const { output, outputBytes } = capText(long, 8000);
    expect(output.length).toBeLessThanOrEqual(8000);
    expect(output.startsWith("ERROR tests/test_a.py::test_x\n")).toBe(true);
    expect(output.endsWith(`${summary}\n`)).toBe(true);
    const cut = Number(/\[… (\d+) characters cut …\]/.exec(output)?.[1]);
    expect(long.length - cut).toBe(output.replace(/\n\[… \d+ characters cut …\]\n/, "").length);
    expect(outputBytes).toBe(Buffer.byteLength(long));
    // readers tell a capped output by the mark, not by its length
    expect(CUT_MARK.test(output)).toBe(true);
    expect(CUT_MARK.test(capText(summary, 8000).output)).toBe(false);
  });

  it("leaves a short output whole, and keeps only the head under a tiny cap", () => {
    expect(capText(summary, 8000).output).toBe(summary);
    expect(capText(long, 10).output).toBe(long.slice(0, 10));
  });

  it("a cut through a surrogate pair leaves well-formed text", () => {
    const text = `${"😀".repeat(5000)}b`;
    const { output } = capText(text, 8000);
    expect((output as unknown as { isWellFormed(): boolean }).isWellFormed()).toBe(true);
  });
  it("a multi-byte text well over the cap keeps head, mark and tail within the cap", () => {
    const text = "é".repeat(20000);
    const { output, outputBytes } = capText(text, 8000);
    expect(output.length).toBeLessThanOrEqual(8000);
    expect(outputBytes).toBeGreaterThan(Buffer.byteLength(output));
  });
});
