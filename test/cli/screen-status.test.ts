import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fireIn } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/paths.js";

const dir = mkdtempSync(join(tmpdir(), "fire-screen-status-"));
for (const p of ["fire.config.json", "traces", "candidates"])
  cpSync(join(REPO_ROOT, p), join(dir, p), { recursive: true });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fire = (...args: string[]) => fireIn([...args, "--workspace", dir], { cwd: dir });

describe("fire screen plan --portfolio / fire screen status", () => {
  it("plans from a frozen portfolio named by path or by name; imported rows are not 'not started'", async () => {
    const frozen = await fire(
      "freeze",
      "ref-service-persistence",
      "--name",
      "p1",
      "--force",
      "--reason",
      "test",
    );
    expect(frozen.status).toBe(0);
    const byPath = await fire(
      "screen",
      "plan",
      "--portfolio",
      "portfolios/p1",
      "--cohort",
      "eligible",
    );
    expect(byPath.stderr).toBe("");
    expect(byPath.stdout).toContain("planned screen ref-service-persistence: 3 task(s)");
    const byName = await fire(
      "screen",
      "plan",
      "--portfolio",
      "p1",
      "--cohort",
      "eligible",
      "--name",
      "s2",
    );
    expect(byName.status).toBe(0);

    const before = await fire("screen", "status", "s2");
    expect(before.stdout).toContain("intact   yes (hashes match)");
    expect(before.stdout).toContain("run      not started");
    const imported = await fire(
      "screen",
      "import",
      "s2",
      join(REPO_ROOT, "test/fixtures/screens/table9-sol.csv"),
    );
    expect(imported.status).toBe(0);
    const after = await fire("screen", "status", "s2");
    expect(after.stdout).toContain("run      not run by fire: 42 result row(s) imported");
    expect(after.stdout).not.toContain("not started");
  });

  it("a changed frozen policy is refused naming its file, not with a schema message", async () => {
    const policies = join(dir, "portfolios", "p1", "policies");
    const file = readdirSync(policies)[0]!;
    writeFileSync(join(policies, file), "id: tampered\n");
    const r = await fire("screen", "plan", "--portfolio", "portfolios/p1", "--cohort", "eligible");
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`${file}: SHA-256 does not match the portfolio manifest`);
    expect(r.stderr).not.toMatch(/Invalid input|expected string/);
  });

  it("a screen that does not exist is an error naming its folder, not an empty status", async () => {
    const r = await fire("screen", "status", "no-such-screen");
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain("no screen no-such-screen: screens/no-such-screen/ does not exist");
    expect(r.stdout).not.toContain("results imported directly");
  });
});
