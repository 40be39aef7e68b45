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

  it("counts lines from 1 at an offset", () => {
    expect(lineAtOffset("ab\ncd\nef", 0)).toBe(1);
    expect(lineAtOffset("ab\ncd\nef", 2)).toBe(1);
    expect(lineAtOffset("ab\ncd\nef", 3)).toBe(2);
    expect(lineAtOffset("ab\ncd\nef", 7)).toBe(3);
  });
});
