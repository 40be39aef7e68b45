import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BoundedJson, HOOK_JSON_BOUNDS, parseBounded } from "../../src/runtime/bounded-json.js";

const small = { ...HOOK_JSON_BOUNDS, keep: 64 };

describe("bounded JSON reader", () => {
  it("reads what JSON.parse reads, in any chunking, and rejects what it rejects", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 1, max: 7 }), (v, step) => {
        const text = JSON.stringify(v, null, step % 2 ? 0 : 1);
        const buf = Buffer.from(text);
        const p = new BoundedJson();
        for (let i = 0; i < buf.length; i += step) p.push(buf, i, Math.min(buf.length, i + step));
        expect(p.end()).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
    for (const bad of ['{"a":1,}', "[1,]", '{"a" 1}', "[1 2]", '{"a":tru}', '"x', "{}x", "{"])
      expect(() => parseBounded(bad), bad).toThrow();
    expect(parseBounded('{"__proto__":{"x":1}}').value).toEqual(
      JSON.parse('{"__proto__":{"x":1}}'),
    );
    expect(parseBounded('"\\ud83d\\ude00 \\u00e9\\n"').value).toBe("😀 é\n");
  });

  it("keeps a long string as its head and tail, and counts the cut", () => {
    const s = `${"a".repeat(100)}MIDDLE${"b".repeat(100)}`;
    const { value, cut } = parseBounded(JSON.stringify({ s, t: "short" }), small);
    expect(value).toEqual({ s: `${"a".repeat(32)}\n${"b".repeat(32)}`, t: "short" });
    expect(cut).toBe(1);
    // multi-byte characters are never split at the cut
    const u = parseBounded(JSON.stringify("é".repeat(100)), small).value as string;
    expect(u).toMatch(/^é+\né+$/);
  });

  it("refuses nesting past the depth limit at once, without recursion", () => {
    const n = 1_000_000;
    const deep = Buffer.from(`${"[".repeat(n)}${"]".repeat(n)}`);
    expect(() => parseBounded(deep)).toThrow(/nested deeper than 256 levels/);
    expect(parseBounded(`${"[".repeat(256)}${"]".repeat(256)}`).value).toBeDefined();
  });
});
