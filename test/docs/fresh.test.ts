import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliReference } from "../../src/cli/reference.js";
import { CONDITION_ATOMS, withConditionKeysTable } from "../../src/core/policy/atoms.js";
import { REPO_ROOT } from "../helpers/paths.js";

describe("generated docs are fresh", () => {
  it("docs/cli.md is every command's --help as the program defines it (npm run docs)", async () => {
    const committed = readFileSync(join(REPO_ROOT, "docs/cli.md"), "utf8");
    const fresh = await cliReference();
    expect(committed, "docs/cli.md is stale: run npm run docs").toBe(fresh);
    // It is the real help: a command and a flag the program defines are in it.
    expect(fresh).toContain("## fire screen run");
    expect(fresh).toContain("--workspace");
  });

  it("docs/policy-language.md's condition-keys table is the atom registry's (npm run docs)", () => {
    const committed = readFileSync(join(REPO_ROOT, "docs/policy-language.md"), "utf8");
    expect(committed, "docs/policy-language.md is stale: run npm run docs").toBe(
      withConditionKeysTable(committed),
    );
    // every atom has its row, with the registry's words
    for (const [k, a] of Object.entries(CONDITION_ATOMS))
      expect(committed).toContain(`| \`${k}\` | ${a.description.replace(/\|/g, "\\|")} |`);
  });
});
