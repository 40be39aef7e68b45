import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/paths.js";

/**
 * src/core is the domain: it may not reach the terminal UI, the CLI, the LLM client or the
 * hook runtime (the runtime imports core, never the other way). Read from src/, so the test
 * needs no build and also sees type-only imports.
 */
const SRC = resolve(REPO_ROOT, "src");
const CORE = join(SRC, "core");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

/** Every import / export-from / dynamic import specifier of a file (not inside template text). */
function specifiers(file: string): string[] {
  const text = readFileSync(file, "utf8").replace(/`(?:\\.|[^`\\])*`/g, "``");
  return [
    ...text.matchAll(/^\s*(?:import|export)\s(?:[^'";]*?\sfrom\s)?\s*["']([^"']+)["']/gm),
    ...text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g),
  ].map((m) => m[1] as string);
}

/** `file → target` for each import that leaves core for ui/, cli/, runtime/ or llm/, or a UI/LLM package. */
function forbiddenEdges(): string[] {
  const out: string[] = [];
  for (const file of sourceFiles(CORE)) {
    const from = relative(SRC, file);
    for (const spec of specifiers(file)) {
      if (spec.startsWith(".")) {
        const to = relative(SRC, resolve(dirname(file), spec));
        if (/^(ui|cli|runtime|llm)\//.test(to)) out.push(`${from} → ${to}`);
      } else if (/^(ink|react|openai|ink-[\w-]+)(\/|$)/.test(spec)) out.push(`${from} → ${spec}`);
    }
  }
  return out.sort();
}

describe("the core import graph (src/core)", () => {
  it("reads a real tree: many files, and the specifier scan finds imports", () => {
    const files = sourceFiles(CORE);
    expect(files.length).toBeGreaterThan(100);
    expect(specifiers(join(CORE, "policy/compile.ts")).length).toBeGreaterThan(2);
  });

  it("imports nothing from ui/, cli/, runtime/ or llm/, and no ink, react or openai", () => {
    expect(forbiddenEdges()).toEqual([]);
  });

  it("would see a forbidden edge: the scan resolves relative imports into ui/", () => {
    const screen = join(SRC, "ui/screens/ScreenBody.tsx");
    expect(specifiers(screen).map((s) => relative(SRC, resolve(dirname(screen), s)))).toContain(
      "ui/screens/TriageScreen.js",
    );
  });
});
