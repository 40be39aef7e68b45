import { describe, expect, it } from "vitest";
import { Rng } from "../../src/gen/prng.js";

describe("Rng", () => {
  it("repeats its sequence for a seed and differs across seeds", () => {
    const seq = (seed: number) =>
      Array.from(
        { length: 5 },
        (() => {
          const r = new Rng(seed);
          return () => r.u32();
        })(),
      );
    expect(seq(7)).toEqual(seq(7));
    expect(seq(7)).not.toEqual(seq(8));
  });

  it("keeps ints in range and covers it", () => {
    const r = new Rng(1);
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const v = r.int(3, 9);
      expect(v).toBeGreaterThanOrEqual(3);
      expect(v).toBeLessThanOrEqual(9);
      seen.add(v);
    }
    expect([...seen].sort()).toEqual([3, 4, 5, 6, 7, 8, 9]);
  });

  it("forks by label without advancing the parent", () => {
    const a = new Rng(42);
    const b = new Rng(42);
    const fa = a.fork("task-1").hex(16);
    expect(b.fork("task-1").hex(16)).toBe(fa);
    expect(new Rng(42).fork("task-2").hex(16)).not.toBe(fa);
    expect(a.u32()).toBe(b.u32());
  });

  it("makes v4-shaped UUIDs and Harbor-style suffixes", () => {
    const r = new Rng(5);
    expect(r.uuid()).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(r.alnum(7)).toMatch(/^[A-Za-z0-9]{7}$/);
  });
});
