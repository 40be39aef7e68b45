import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../helpers/paths.js";
import { collect } from "./collect.js";

/** A real Harbor trial of the Codex CLI (test/fixtures/harbor-codex-atif, README there). */
const TRIAL = resolve(REPO_ROOT, "test/fixtures/harbor-codex-atif/api-change-guard__TAuNVbR");

describe("a Harbor trial whose agent writes its own context as the first user message", () => {
  it("takes the task from the first prompt the harness did not write", async () => {
    const got = await collect([TRIAL]);
    expect(got.errors).toEqual([]);
    const a = got.attempts[0];
    expect(a?.agent).toBe("codex");
    expect(a?.taskText).toMatch(/^Write api-change-guard as a CLI installed at \/usr\/local\/bin/);
    expect(a?.taskText).not.toContain("environment_context");
  });
});
