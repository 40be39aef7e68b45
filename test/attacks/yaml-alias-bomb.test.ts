import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPolicies } from "../../src/core/policy/load.js";
import { runFire } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/paths.js";

/** Billion laughs: each level doubles, ~2^20 strings from a few hundred bytes. */
function aliasBomb(levels = 20): string {
  const lines = ['a: &a ["lol","lol"]'];
  for (let i = 1; i < levels; i++) {
    const prev = String.fromCharCode(97 + ((i - 1) % 26)) + (i > 25 ? i : "");
    const name = String.fromCharCode(97 + (i % 26)) + (i >= 25 ? i + 1 : "");
    lines.push(`${name}: &${name} [*${prev},*${prev}]`);
  }
  return `${lines.join("\n")}\nid: bomb\n`;
}

function workspaceWithBomb(): string {
  const ws = mkdtempSync(join(tmpdir(), "fire-yaml-bomb-"));
  const dir = join(ws, "candidates", "drafts");
  mkdirSync(dir, { recursive: true });
  copyFileSync(
    join(REPO_ROOT, "candidates/reference/service-persistence.yaml"),
    join(dir, "good.yaml"),
  );
  writeFileSync(join(dir, "bomb.yaml"), aliasBomb());
  return ws;
}

describe("a YAML alias bomb next to a good candidate", () => {
  it("is an error naming the file; the good candidate still loads", () => {
    const ws = workspaceWithBomb();
    const r = loadPolicies([join(ws, "candidates")]);
    expect(r.policies.map((p) => p.id)).toEqual(["ref-service-persistence"]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]?.format()).toMatch(/bomb\.yaml.*not valid YAML: .*alias/i);
  });

  it("does not break a command that loads candidates", () => {
    const ws = workspaceWithBomb();
    const r = runFire(["route", "--workspace", ws], { cwd: ws });
    expect(r.stderr).not.toMatch(/is not a function|TypeError|\n\s+at /);
    expect(`${r.stdout}${r.stderr}`).toMatch(/bomb\.yaml/);
  });
});
