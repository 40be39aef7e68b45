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

/** Every import / export-from of a file with whether it brings in types only. */
function imports(file: string, source?: string): { spec: string; typeOnly: boolean }[] {
  const text = (source ?? readFileSync(file, "utf8")).replace(/`(?:\\.|[^`\\])*`/g, "``");
  const statics = [
    ...text.matchAll(/^\s*(import|export)(\s+type)?\s(?:([^'";]*?)\sfrom\s)?\s*["']([^"']+)["']/gm),
  ].map((m) => {
    const names = (m[3] ?? "").trim();
    const allTypes = /^\{\s*type\s[^}]*\}$/.test(names) && !/,\s*(?!type\s)\w/.test(names);
    return { spec: m[4] as string, typeOnly: m[2] !== undefined || allTypes };
  });
  const dynamics = [...text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)].map((m) => ({
    spec: m[1] as string,
    typeOnly: false,
  }));
  return [...statics, ...dynamics];
}

/**
 * The front ends' side of the boundary: a CLI command or a workbench module reaches core
 * only through core/app (the use-case layer and its presenters), the model's types and
 * values (core/model), the errors it maps (core/errors) and the output neutraliser
 * (core/printable); from anywhere else in core it may import types only.
 */
const FRONT_END_ALLOWED = /^core\/(app\/|model\/|errors\.js$|printable\.js$)/;

/** `file → target` per forbidden import; `source` stands in for a file's text (the probe). */
function frontEndEdges(files: readonly string[], source?: string): string[] {
  const out: string[] = [];
  for (const file of files) {
    const from = relative(SRC, file);
    for (const { spec, typeOnly } of imports(file, source)) {
      if (!spec.startsWith(".") || typeOnly) continue;
      const to = relative(SRC, resolve(dirname(file), spec));
      if (to.startsWith("core/") && !FRONT_END_ALLOWED.test(to)) out.push(`${from} → ${to}`);
    }
  }
  return out.sort();
}

/** The CLI whole (its commands and the helpers they share) and the workbench. */
const FRONT_ENDS = () => [...sourceFiles(join(SRC, "cli")), ...sourceFiles(join(SRC, "ui"))];

describe("the front ends' import graph (src/cli, src/ui)", () => {
  it("reads every command, the helpers they share and every workbench module", () => {
    const files = FRONT_ENDS().map((f) => relative(SRC, f));
    expect(files).toContain("cli/commands/import.ts");
    expect(files).toContain("cli/util/workspace.ts");
    expect(files).toContain("ui/screens/TriageScreen.tsx");
    expect(files.length).toBeGreaterThan(60);
  });

  it("reach core only through core/app, core/model, core/errors and core/printable", () => {
    expect(frontEndEdges(FRONT_ENDS())).toEqual([]);
  });

  it("would see a command that imports a core internal, and let its types through", () => {
    const probe = join(SRC, "cli/commands/probe.ts"); // never written: its text is given
    const text = [
      'import { triage } from "../../core/mine/triage.js";',
      'import type { TaskTriage } from "../../core/mine/triage.js";',
      'import { type Label, reviewGist } from "../../core/mine/label.js";',
      'import { type Cluster } from "../../core/mine/cluster.js";',
      'import { triageView } from "../../core/app/workspace.js";',
      'import { Attempt } from "../../core/model/attempt.js";',
      'const lazy = () => import("../../core/workspace/load.js");',
      "",
    ].join("\n");
    expect(frontEndEdges([probe], text)).toEqual([
      "cli/commands/probe.ts → core/mine/label.js",
      "cli/commands/probe.ts → core/mine/triage.js",
      "cli/commands/probe.ts → core/workspace/load.js",
    ]);
  });
});

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
