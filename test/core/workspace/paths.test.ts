import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { workspacePaths } from "../../../src/core/workspace/paths.js";
import { REPO_ROOT } from "../../helpers/paths.js";

const SRC = resolve(REPO_ROOT, "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

/**
 * A path built from a workspace folder's name instead of workspacePaths: the name as the
 * second argument of a join (the first may hold one level of calls: `join(resolve(dir), ".fire")`).
 */
const LAYOUT_JOIN =
  /\bjoin\((?:[^(),]|\([^()]*\))*,\s*"(?:mining|screens|replay|exports|drafts|\.fire|cache|traces|candidates|portfolios)"/;

describe("workspacePaths: the one workspace layout", () => {
  it("names every folder and shared file under the workspace root", () => {
    const p = workspacePaths("/w");
    expect(relative("/w", p.decisions)).toBe(join("mining", "decisions.json"));
    expect(relative("/w", p.handOutcomes)).toBe(join("mining", "outcomes.json"));
    expect(relative("/w", p.drafts)).toBe(join("candidates", "drafts"));
    expect(relative("/w", p.replayScreens)).toBe(join("screens", "replay"));
    expect(relative("/w", p.index)).toBe(join(".fire", "cache", "index.json"));
    expect(relative("/w", p.llmCache)).toBe(join(".fire", "cache", "llm"));
    expect(relative("/w", p.hookLog)).toBe(join(".fire", "hook-log.jsonl"));
    expect(relative("/w", p.state)).toBe(join(".fire", "state"));
    for (const v of Object.values(p)) expect(v.startsWith("/w")).toBe(true);
  });

  it("is where core, src/llm, the hook and the front ends take workspace folders from (no join of a folder name)", () => {
    const offenders = ["core", "llm", "cli", "ui", "runtime"]
      .flatMap((d) => sourceFiles(join(SRC, d)))
      .filter((f) => !f.endsWith(join("workspace", "paths.ts")))
      .filter((f) => LAYOUT_JOIN.test(readFileSync(f, "utf8")))
      .map((f) => relative(SRC, f));
    expect(offenders).toEqual([]);
  });
});
