import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { DRAFT_LANGUAGE } from "../../../src/core/draft/llm-drafter.js";
import { COMBINATORS, CONDITION_ATOMS, PATTERN_ATOMS } from "../../../src/core/policy/atoms.js";
import { collectPatterns } from "../../../src/core/policy/patterns.js";
import { Candidate, Condition } from "../../../src/core/policy/schema.js";

const SRC = join(import.meta.dirname, "../../../src");
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(n) ? [p] : [];
  });

interface Shape {
  safeParse(v: unknown): { success: boolean };
}
const BASE = {
  id: "x",
  version: 1,
  family: "f",
  title: "t",
  chain: { state: "s", intervention: "i", behavior: "b", verifier: "v" },
  behavior: {},
};

describe("the condition-atom registry", () => {
  it("holds exactly the keys the condition schema accepts (a new atom must be registered)", () => {
    const shape = (Condition as unknown as { unwrap(): { shape: object } }).unwrap().shape;
    expect(Object.keys(shape).sort()).toEqual(
      [...Object.keys(CONDITION_ATOMS), ...Object.keys(COMBINATORS)].sort(),
    );
  });

  it("no other file spells the atoms out again (a list of atom names is a second definition)", () => {
    const atoms = Object.keys(CONDITION_ATOMS);
    const lists: string[] = [];
    for (const f of files(SRC)) {
      const rel = relative(SRC, f);
      if (rel === "core/policy/atoms.ts") continue;
      const text = readFileSync(f, "utf8");
      for (const m of text.matchAll(/[[(:]([^\])\n]{0,400})/g)) {
        const words = new Set((m[1] ?? "").match(/\b[a-zA-Z]+\b/g) ?? []);
        const named = [
          "command",
          "writes",
          "exitCode",
          "unset",
          "recorded",
          "captured",
          "mentions",
        ];
        if (named.filter((a) => words.has(a)).length >= 5 && atoms.length) lists.push(rel);
      }
    }
    expect([...new Set(lists)]).toEqual([]);
  });

  it("an atom holds a pattern exactly when its shape takes one, and the walkers see each", () => {
    const shape = (Condition as unknown as { unwrap(): { shape: Record<string, Shape> } }).unwrap()
      .shape;
    const takesPattern = Object.keys(CONDITION_ATOMS).filter(
      (a) => shape[a]!.safeParse({ pattern: "x", flags: "i" }).success,
    );
    expect([...PATTERN_ATOMS].sort()).toEqual(takesPattern.sort());
    expect(PATTERN_ATOMS.length).toBeGreaterThan(3);
    const when = Object.fromEntries(PATTERN_ATOMS.map((a) => [a, `p-${a}`]));
    const c = Candidate.parse({
      ...BASE,
      rules: [{ id: "r", at: "tool", action: "instruct", message: "m", when: { not: when } }],
    });
    expect(collectPatterns(c).map((p) => [p.path.join("."), p.source])).toEqual(
      PATTERN_ATOMS.map((a) => [`rules.0.when.not.${a}`, `p-${a}`]),
    );
  });

  it("the LLM drafter is told every atom, status, elapsed and timed included", () => {
    for (const a of Object.keys(CONDITION_ATOMS)) expect(DRAFT_LANGUAGE).toContain(`${a} (`);
  });

  it("values lists read by any atom must be declared, named by path", () => {
    const base = {
      id: "x",
      version: 1,
      family: "f",
      title: "t",
      chain: { state: "s", intervention: "i", behavior: "b", verifier: "v" },
      eligibility: { anyOf: ["task"] },
      rules: [
        {
          id: "r",
          at: "stop",
          action: "instruct",
          message: "m",
          when: { any: [{ elapsed: { share: 0.5, of: "limits" } }, { timed: "clock" }] },
        },
      ],
      behavior: {},
    };
    const r = Candidate.safeParse(base);
    expect(r.success).toBe(false);
    const paths = r.error?.issues.map((i) => i.path.join("."));
    expect(paths).toEqual(
      expect.arrayContaining(["rules.0.when.any.0.elapsed.of", "rules.0.when.any.1.timed"]),
    );
  });
});
