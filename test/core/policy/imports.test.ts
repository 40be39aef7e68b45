import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../helpers/paths.js";

/** Runtime (non-type) imports of a source file, resolved to source paths or package names. */
function runtimeImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const out: string[] = [];
  for (const m of text.matchAll(/^import\s+(?!type\b)[^;]*?from\s+"([^"]+)";/gms)) {
    const spec = m[1]!;
    out.push(spec.startsWith(".") ? resolve(dirname(file), spec.replace(/\.js$/, ".ts")) : spec);
  }
  return out;
}

function closure(entry: string): Set<string> {
  const seen = new Set<string>();
  const todo = [entry];
  while (todo.length > 0) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    for (const i of runtimeImports(f)) if (i.startsWith("/")) todo.push(i);
    for (const i of runtimeImports(f)) if (!i.startsWith("/")) seen.add(i);
  }
  return seen;
}

describe("the hook's policy path stays light", () => {
  for (const mod of ["evaluator.ts", "compile.ts"]) {
    it(`${mod} loads neither zod, yaml nor the regex-safety checker`, () => {
      const deps = [...closure(join(REPO_ROOT, "src/core/policy", mod))];
      expect(deps.filter((d) => !d.startsWith("/") && !d.startsWith("node:"))).toEqual([]);
      expect(deps.some((d) => d.endsWith("safety.ts") || d.endsWith("schema.ts"))).toBe(false);
      expect(deps.length).toBeGreaterThan(1);
    });
  }
  it("the loader does use zod and the safety check (so the test above can fail)", () => {
    const deps = [...closure(join(REPO_ROOT, "src/core/policy/load.ts"))];
    expect(deps).toEqual(
      expect.arrayContaining(["zod", join(REPO_ROOT, "src/core/policy/regex.ts")]),
    );
  });
});
