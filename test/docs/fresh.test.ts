import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliReference } from "../../src/cli/reference.js";
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
});
