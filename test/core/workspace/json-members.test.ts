import { describe, expect, it } from "vitest";
import { memberValue, objectMembers } from "../../../src/core/workspace/json-members.js";

const parts = (value: unknown, text = JSON.stringify(value)) => {
  const b = Buffer.from(text, "utf8");
  const m = objectMembers(b);
  return Object.fromEntries([...m.keys()].map((k) => [k, memberValue(b, m, k)]));
};

describe("objectMembers", () => {
  it("gives each member's value as JSON.parse reads it", () => {
    const value = {
      v: 3,
      key: '{"a":"]}\\"x"}',
      ids: ["a]b", 'q"uo\\te', "ü—ß", "{[", ""],
      nested: { a: [1, [2, { b: null }]], c: "}" },
      n: -1.5e3,
      t: true,
      f: false,
      z: null,
      empty: {},
      none: [],
    };
    expect(parts(value)).toEqual(value);
  });

  it("reads an inner object's members from its span and allows spaces", () => {
    const text = ' { "a" : 1 ,\n "table" : { "ids" : [ "x" , "y" ] , "unit" : [0,0] } } ';
    const b = Buffer.from(text);
    const top = objectMembers(b);
    const table = objectMembers(b, top.get("table")![0]);
    expect(memberValue(b, table, "ids")).toEqual(["x", "y"]);
    expect(memberValue(b, table, "unit")).toEqual([0, 0]);
    expect(memberValue(b, table, "inner")).toBeUndefined();
  });

  it("keeps the last of a repeated key, as JSON.parse does", () => {
    expect(parts(undefined, '{"a":1,"a":2}')).toEqual({ a: 2 });
  });

  it("throws on bytes that are not one object", () => {
    for (const text of ["[1]", '{"a":1', '{"a" 1}', '{"a":"x}', "{a:1}"])
      expect(() => objectMembers(Buffer.from(text))).toThrow();
  });
});
