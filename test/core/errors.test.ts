import { describe, expect, it } from "vitest";
import { InputError, lineAtOffset, parseJsonText } from "../../src/core/errors.js";

describe("parseJsonText", () => {
  it("returns the parsed value", () => {
    expect(parseJsonText('{"a": [1, 2]}', "x.json")).toEqual({ a: [1, 2] });
  });

  it("names the file and the line of a syntax error", () => {
    let err: unknown;
    try {
      parseJsonText('{\n  "a": 1,\n  "b" 2\n}', "dir/x.json");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    const e = err as InputError;
    expect(e.file).toBe("dir/x.json");
    expect(e.line).toBe(3);
    expect(e.format()).toMatch(/^dir\/x\.json:3: invalid JSON: /);
  });

  it("finds the line when the parser quotes the text around the error instead of a position", () => {
    const lineOf = (text: string) => {
      try {
        parseJsonText(text, "x.json");
      } catch (e) {
        return (e as InputError).line;
      }
      return "parsed";
    };
    // a cut-off file (a writer killed mid-write): the error is at its end
    expect(lineOf('{\n  "content": [\n    {"type": "text"')).toBe(3);
    // a doubled comma: V8 says `Unexpected token ','` and quotes the context
    expect(lineOf('{\n  "content": [\n    {"type": "text", "text": "x"},,\n  ]\n}\n')).toBe(3);
  });

  it("counts lines from 1 at an offset", () => {
    expect(lineAtOffset("ab\ncd\nef", 0)).toBe(1);
    expect(lineAtOffset("ab\ncd\nef", 2)).toBe(1);
    expect(lineAtOffset("ab\ncd\nef", 3)).toBe(2);
    expect(lineAtOffset("ab\ncd\nef", 7)).toBe(3);
  });
});
