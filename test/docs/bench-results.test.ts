import { describe, expect, it } from "vitest";
import { RESULTS_HEADER, withSection } from "../../src/bench/results-file.js";

describe("docs/benchmarks.md sections (written by npm run bench)", () => {
  it("a run replaces its own section and leaves the others; a new benchmark is appended", () => {
    const one = withSection(RESULTS_HEADER, "hook", "old hook table");
    const two = withSection(one, "ingest", "ingest table");
    const three = withSection(two, "hook", "new hook table");
    expect(three).toContain("<!-- bench: hook -->\nnew hook table\n<!-- /bench: hook -->");
    expect(three).not.toContain("old hook table");
    expect(three).toContain("<!-- bench: ingest -->\ningest table\n<!-- /bench: ingest -->");
    expect(three.indexOf("## hook")).toBeLessThan(three.indexOf("## ingest"));
    expect(three.startsWith(RESULTS_HEADER.trimEnd())).toBe(true);
  });
});
