import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { installHook, runScreen } from "../../src/core/app/index.js";
import { DomainError, InvalidFieldError, NotFoundError } from "../../src/core/errors.js";
import { screenStatus } from "../../src/core/screening/results/status.js";
import { checkHarbor } from "../../src/core/screening/run/harbor.js";
import { fireIn } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/paths.js";

const dir = mkdtempSync(join(tmpdir(), "fire-domain-errors-"));
for (const p of ["fire.config.json", "traces", "candidates"])
  cpSync(join(REPO_ROOT, p), join(dir, p), { recursive: true });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fire = (...args: string[]) => fireIn([...args, "--workspace", dir], { cwd: dir });
const missing = join(dir, "no-such-folder");

describe("domain errors: core names request fields, the CLI names its flags", () => {
  it("core throws an InvalidFieldError about copyFrom, naming no flag (the workbench shows it)", async () => {
    const run = runScreen({
      workspace: dir,
      name: "s",
      settings: { runner: "local", command: "true", copyFrom: missing },
    });
    await expect(run).rejects.toBeInstanceOf(InvalidFieldError);
    await expect(run).rejects.toMatchObject({ field: "copyFrom" });
    await expect(run).rejects.toThrow(/^copy-from folder .*: no such folder$/);
    await expect(run).rejects.not.toThrow(/--/);
  });

  it("fire screen run maps it to exit 2 and the --copy-from flag", async () => {
    const r = await fire(
      "screen",
      "run",
      "s",
      "--runner",
      "local",
      "--command",
      "true",
      "--copy-from",
      missing,
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`fire: --copy-from ${missing}: no such folder\n`);
  });

  it("a missing screen is a NotFoundError in core and exit 2 in the CLI", async () => {
    const status = screenStatus(dir, "nope");
    await expect(status).rejects.toBeInstanceOf(NotFoundError);
    await expect(status).rejects.toBeInstanceOf(DomainError);
    const r = await fire("screen", "status", "nope");
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^fire: no screen nope: /);
  });

  it("fire hook install with nothing frozen: core names the portfolio field, the CLI --portfolio and -w", async () => {
    const install = () => installHook({ harness: "claude", workspace: dir, project: dir });
    expect(install).toThrow(NotFoundError);
    expect(install).toThrow(
      /^nothing frozen yet under .*portfolios\/: .* name a frozen portfolio$/,
    );
    expect(install).not.toThrow(/--|-w /);
    try {
      install();
    } catch (err) {
      expect(err).toMatchObject({ field: "portfolio" });
    }
    const r = await fire("hook", "install", "--harness", "claude", "--project", dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^fire: nothing frozen yet under /);
    expect(r.stderr).toContain(
      "name a frozen portfolio: pass --portfolio FILE|DIR (a frozen portfolio), or -w DIR of a workspace that has one\n",
    );
  });

  it("a Harbor that does not start: core names the harborBin field, fire screen run --harbor-bin", () => {
    const harbor = join(dir, "no-such-harbor");
    expect(() => checkHarbor(harbor)).toThrow(NotFoundError);
    expect(() => checkHarbor(harbor)).toThrow(/^Harbor is not installed .*uv tool install harbor/);
    expect(() => checkHarbor(harbor)).not.toThrow(/--/);
    try {
      checkHarbor(harbor);
    } catch (err) {
      expect(err).toMatchObject({ field: "harborBin" });
    }
  });
});
