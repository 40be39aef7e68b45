import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseJsonLines } from "../../src/core/jsonl.js";

const Row = z.object({ id: z.string(), n: z.number() });

describe("parseJsonLines", () => {
  it("keeps good lines around bad ones, naming file:line and what was expected", () => {
    const text = '{"id":"a","n":1}\r\n\n{"id":"b",\n{"id":"c","n":"x"}\n{"id":"d","n":4}\n';
    const r = parseJsonLines(text, "rows.jsonl", Row, "bad row");
    expect(r.rows).toEqual([
      { value: { id: "a", n: 1 }, line: 1 },
      { value: { id: "d", n: 4 }, line: 5 },
    ]);
    expect(r.errors.map((e) => e.format())).toEqual([
      expect.stringMatching(/^rows\.jsonl:3: invalid JSON: /),
      expect.stringMatching(/^rows\.jsonl:4: bad row: n: /),
    ]);
  });

  it("reports schema errors without a prefix when none is given", () => {
    const r = parseJsonLines('{"id":1,"n":1}', "x.jsonl", Row);
    expect(r.rows).toEqual([]);
    expect(r.errors[0]!.format()).toMatch(/^x\.jsonl:1: id: /);
  });
});
