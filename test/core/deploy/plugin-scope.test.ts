import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { installHookPlugin } from "../../../src/core/deploy/plugin-install.js";
import { InvalidFieldError } from "../../../src/core/errors.js";

const dir = mkdtempSync(join(tmpdir(), "fire-plugin-scope-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a Codex plugin install for a project", () => {
  it("is refused by core as an invalid scope, before anything is written", async () => {
    const market = join(dir, "market");
    const err = await installHookPlugin({
      harness: "codex",
      dir: market,
      project: dir,
      portfolio: join(dir, "portfolio"),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidFieldError);
    expect((err as InvalidFieldError).field).toBe("scope");
    expect((err as Error).message).not.toMatch(/--/);
    expect(readdirSync(dir)).toEqual([]);
  });
});
