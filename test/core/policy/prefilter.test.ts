import { resolve } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/core/policy/compile.js";
import { loadPolicies } from "../../../src/core/policy/load.js";
import { type Literals, necessaryLiterals } from "../../../src/core/policy/prefilter.js";
import { linearSource } from "../../../src/core/policy/regex.js";
import { REPO_ROOT } from "../../helpers/paths.js";

/**
 * A prefilter may only skip texts the pattern cannot match: every text the pattern matches
 * holds one of its literals (case-insensitively). Checked on strings fast-check generates
 * FROM each pattern, set inside random text, for the reference portfolio's and the fixture
 * candidates' condition patterns and for random patterns from a small grammar.
 */
const passes = (literals: Literals, text: string) =>
  literals.some((l) => text.toLowerCase().includes(l));

/** Every condition pattern of the given portfolios, in the form the engine runs. */
function conditionPatterns(): { source: string; flags: string }[] {
  const roots = [
    "candidates/reference",
    "test/runtime/fixtures/portfolio",
    "test/fixtures/screens",
  ];
  const { policies } = loadPolicies(roots.map((r) => resolve(REPO_ROOT, r)));
  const out = new Map<string, { source: string; flags: string }>();
  for (const p of policies)
    compilePolicy(p.candidate, p.file, {
      literals: (source, flags) => {
        out.set(`${flags}/${source}`, { source, flags });
        return undefined;
      },
    });
  return [...out.values()];
}

/**
 * Texts built around strings fast-check generates from `re` (it cannot generate `\b`, so it
 * generates from the pattern without them; the property then only counts texts `re` really
 * matches). Undefined when fast-check cannot generate from the pattern at all.
 */
function around(re: RegExp): fc.Arbitrary<string> | undefined {
  try {
    const bare = new RegExp(re.source.replace(/(?<!\\)\\b/g, ""), re.flags);
    const whole = fc.stringMatching(bare);
    fc.sample(whole, { numRuns: 1, seed: 1 });
    const side = fc.string({ maxLength: 6 });
    return fc.oneof(
      whole,
      fc.tuple(side, whole, side).map(([a, m, b]) => `${a} ${m} ${b}`),
      fc.tuple(side, whole).map(([a, m]) => `${a}\n${m}`),
    );
  } catch {
    return undefined;
  }
}

/** Checks the prefilter of one pattern; false when it has none or nothing could be generated. */
function checkSound(source: string, flags: string, runs: number, seed: number): boolean {
  const literals = necessaryLiterals(source, flags);
  if (!literals) return false;
  const l = linearSource(source, flags);
  const re = new RegExp(l.source, l.flags);
  const gen = around(re);
  if (!gen) return false;
  let matched = 0;
  fc.assert(
    fc.property(gen, (text) => {
      if (!re.test(text)) return true;
      matched++;
      return passes(literals, text);
    }),
    { numRuns: runs, seed },
  );
  return matched > 0;
}

describe("literal prefilters", () => {
  it("are what the syntax proves, and nothing when nothing is proven", () => {
    expect(necessaryLiterals("\\bgit\\s+push\\b")).toEqual(["push"]);
    expect(necessaryLiterals("(a|b)cd")).toEqual(["acd", "bcd"]);
    expect(necessaryLiterals("[gG][iI][tT]")).toEqual(["git"]);
    expect(necessaryLiterals("Git", "i")).toEqual(["git"]);
    expect(necessaryLiterals("(rm|mv)\\s+-rf")).toEqual(["-rf"]);
    expect(necessaryLiterals("x?y?")).toBeUndefined();
    expect(necessaryLiterals("a.b")).toBeUndefined();
    expect(necessaryLiterals("(?:abc)+x")).toEqual(["abc"]);
    expect(necessaryLiterals("ab|.")).toBeUndefined(); // one branch proves nothing
    expect(necessaryLiterals("curl", "g")).toBeUndefined(); // stateful: always runs
    expect(necessaryLiterals("[^a]bc")).toEqual(["bc"]);
    expect(necessaryLiterals("caf\\u00e9s")).toEqual(["caf"]); // é is not ASCII: it cuts the run
  });

  it("never skip a text the pattern matches: the portfolio's condition patterns", () => {
    const patterns = conditionPatterns();
    expect(patterns.length).toBeGreaterThan(20);
    let checked = 0;
    patterns.forEach(({ source, flags }, i) => {
      if (checkSound(source, flags, 150, 1000 + i)) checked++;
    });
    // most are generable and have a prefilter; the rest always run
    expect(checked).toBeGreaterThan(patterns.length / 2);
  });

  it("never skip a text the pattern matches: random patterns", () => {
    const atom = fc.oneof(
      fc.constantFrom("a", "b", "c", "x", "-", "\\.", "/", " ", "A", "Z"),
      fc.constantFrom("[ab]", "[aA]", "[^a]", ".", "\\d", "\\w", "\\s", "\\b", "^", "$"),
    );
    const pattern = fc.letrec((tie) => ({
      term: fc.oneof(
        { weight: 4, arbitrary: atom },
        { weight: 1, arbitrary: fc.tuple(tie("seq"), tie("seq")).map(([a, b]) => `(${a}|${b})`) },
        {
          weight: 1,
          arbitrary: fc
            .tuple(tie("term"), fc.constantFrom("?", "*", "+", "{2}", "{1,3}", "{0,2}"))
            .map(([t, q]) => `(?:${t})${q}`),
        },
      ),
      seq: fc.array(tie("term"), { minLength: 1, maxLength: 6 }).map((ts) => ts.join("")),
    })).seq as fc.Arbitrary<string>;
    let checked = 0;
    fc.assert(
      fc.property(pattern, fc.constantFrom("", "i", "m"), (source, flags) => {
        if (checkSound(source, flags, 30, 7)) checked++;
        return true;
      }),
      { numRuns: 400, seed: 42 },
    );
    expect(checked).toBeGreaterThan(100);
  });
});
