import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/paths.js";

describe("docs/workbench.md", () => {
  it("its generated frames are what the built workbench shows (npm run docs:walkthrough)", () => {
    // The capture drives the built workbench (dist/, built by the global setup) on a temp copy
    // of the demo and compares each `<!-- frame: … -->` block, ISO times and digests aside.
    const r = spawnSync(
      process.execPath,
      [join(REPO_ROOT, "scripts/walkthrough.mjs"), "--check", join(REPO_ROOT, "docs/workbench.md")],
      { cwd: REPO_ROOT, encoding: "utf8", timeout: 170_000 },
    );
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
  });
});
