import { describe, expect, it } from "vitest";
import { parseResultsTable } from "../../../src/core/screening/results/parse-table.js";
import { fillTemplate, parseVars } from "../../../src/core/screening/run/template.js";
import { shellQuote } from "../../../src/core/shell-quote.js";

describe("results tables", () => {
  it("JSON lines: numbers and booleans as written, bad lines named, good lines kept", () => {
    const text = [
      '{"task":"a","arm":"policy","attempt":1,"pass":true,"fired":1,"cost":0.5}',
      "{not json",
      '{"task":"a","arm":"baseline","attempt":1,"pass":"fail","cohort":"eligible"}',
      '{"task":"a","arm":"baseline","attempt":-1,"pass":true}',
      "",
    ].join("\n");
    const r = parseResultsTable(text, "r.jsonl");
    expect(r.rows).toEqual([
      {
        task: "a",
        arm: "policy",
        attempt: 1,
        pass: true,
        fired: true,
        cost: 0.5,
        source: "r.jsonl:1",
      },
      {
        task: "a",
        arm: "baseline",
        attempt: 1,
        pass: false,
        cohort: "eligible",
        source: "r.jsonl:3",
      },
    ]);
    expect(r.errors.map((e) => e.format())).toEqual([
      expect.stringMatching(/^r\.jsonl:2: invalid JSON/),
      expect.stringMatching(/^r\.jsonl:4: attempt: /),
    ]);
  });

  it("CSV: header columns in any order, blank optional cells, comments, quoted cells", () => {
    const text =
      '# comment\npass,arm,task,attempt,durationS\nyes,policy,"task, with comma",2,\nno,baseline,t,1,12.5\n';
    const r = parseResultsTable(text, "r.csv");
    expect(r.errors).toEqual([]);
    expect(r.rows).toEqual([
      { task: "task, with comma", arm: "policy", attempt: 2, pass: true, source: "r.csv:3" },
      { task: "t", arm: "baseline", attempt: 1, pass: false, durationS: 12.5, source: "r.csv:4" },
    ]);
  });

  it("an empty CSV is one clear error", () => {
    expect(parseResultsTable("task,arm,attempt,pass\n", "e.csv").errors[0]?.format()).toBe(
      "e.csv:1: no rows (expected a header task,arm,attempt,pass)",
    );
  });
});

describe("command templates", () => {
  it("quotes values for sh, inserts {name!} raw, and names unknown placeholders", () => {
    expect(shellQuote("a b'c")).toBe(`'a b'\\''c'`);
    expect(fillTemplate("run {task} {flags!}", { task: "x y", flags: "--a 1" })).toBe(
      "run 'x y' --a 1",
    );
    expect(() => fillTemplate("run {nope}", { task: "t" })).toThrow(
      "unknown placeholder {nope} in the command template (known: {task})",
    );
    expect(parseVars(["dataset=tb@2.0", "model=a=b"])).toEqual({ dataset: "tb@2.0", model: "a=b" });
    // a domain error about the request's `vars` field: core names no CLI flag
    expect(() => parseVars(["novalue"])).toThrow(
      expect.objectContaining({
        field: "vars",
        message: 'a variable expects key=value, got "novalue"',
      }),
    );
  });
});
