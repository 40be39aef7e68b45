import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { type Finding, foldVerdict } from "../../../src/core/verdict/finding.js";

const SRC = join(import.meta.dirname, "../../../src");
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(n) ? [p] : [];
  });

describe("one verdict fold", () => {
  it("only the fold walks the verdict order (no file folds verdicts a second time)", () => {
    const walkers = files(SRC)
      .filter((f) => readFileSync(f, "utf8").includes("VERDICT_KINDS"))
      .map((f) => relative(SRC, f))
      .sort();
    expect(walkers).toEqual(["core/verdict/finding.ts", "core/verdict/thresholds.ts"]);
  });

  it("the most severe verdict any finding argues for wins; context findings do not vote", () => {
    const f = (verdict?: Finding["verdict"]): Finding =>
      verdict ? { code: "no-run-verdict", verdict } : { code: "stale-replay" };
    expect(foldVerdict([f("promising"), f("inert"), f("over-broad")])).toBe("over-broad");
    expect(foldVerdict([f("inconclusive"), f("promising")])).toBe("promising");
    expect(foldVerdict([f("promising"), f("harmful")])).toBe("harmful");
    expect(foldVerdict([f()])).toBe("inconclusive");
    expect(foldVerdict([])).toBe("inconclusive");
  });
});
