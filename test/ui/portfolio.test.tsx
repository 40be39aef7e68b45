import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runFire } from "../helpers/cli.js";
import { DEMO_ATTEMPTS } from "../helpers/demo.js";
import { demoCopy, renderApp } from "./helpers.js";

const ws = demoCopy();
const fire = (...args: string[]) => {
  const r = runFire([...args, "--workspace", ws.dir]);
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
};

beforeAll(() => {
  // The loop by CLI: mine → draft from the service-persistence cluster → replay screen → freeze.
  fire("mine");
  const clusters = JSON.parse(fire("clusters", "--json")).clusters as {
    id: string;
    family?: string;
  }[];
  const c = clusters.find((x) => x.family === "service-persistence");
  expect(c).toBeDefined();
  const id = /drafted (\S+)@1/.exec(fire("draft", "--cluster", c!.id))?.[1];
  fire("screen", "replay", id!);
  fire("freeze", "--name", "demo", id!);
});
afterAll(() => ws.cleanup());

describe("Portfolio screen", () => {
  it("shows the frozen portfolio with verified hashes and its evidence", async () => {
    const app = renderApp(ws.dir, { columns: 100, rows: 30 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("6");
    await app.see("demo", "✓ hashes verified", "manifest sha256");
    const manifest = JSON.parse(
      readFileSync(join(ws.dir, "portfolios/demo/manifest.json"), "utf8"),
    );
    expect(app.frame()).toContain(`manifest sha256 ${manifest.manifestHash}`);
    expect(app.frame()).toContain("evidence: replay screen draft-service-persistence");
    expect(app.frame()).toContain(": promising");
    app.unmount();
  });

  it("installs and uninstalls the hook for Claude Code and Codex in the project", async () => {
    // Codex's hook trust goes to $CODEX_HOME/config.toml: a scratch one, not the user's
    const codexHome = mkdtempSync(join(tmpdir(), "fire-ui-codex-"));
    const saved = process.env.CODEX_HOME;
    process.env.CODEX_HOME = codexHome;
    try {
      const app = renderApp(ws.dir, { columns: 100, rows: 30 });
      await app.press("6");
      await app.see("✓ hashes verified");
      await app.press("c");
      await app.see("installed: fire hook for claude in .claude/settings.local.json");
      const file = join(ws.dir, ".claude/settings.local.json");
      const settings = JSON.parse(readFileSync(file, "utf8"));
      expect(JSON.stringify(settings.hooks.PreToolUse)).toContain("portfolios/demo");
      await app.press("C");
      await app.see("installed: fire hook for codex in .codex/hooks.json");
      expect(readFileSync(join(codexHome, "config.toml"), "utf8")).toContain("trusted_hash");
      await app.press("u");
      await app.see("removed: fire hook for claude in .claude/settings.local.json");
      expect(existsSync(file)).toBe(false); // nothing but fire's hook was in it
      app.unmount();
    } finally {
      if (saved === undefined) delete process.env.CODEX_HOME;
      else process.env.CODEX_HOME = saved;
    }
  });

  it("exports the portfolio for failproofai", async () => {
    const app = renderApp(ws.dir, { columns: 100, rows: 30 });
    await app.press("6");
    await app.see("✓ hashes verified");
    await app.press("x");
    await app.see("exported for failproofai: exports/failproofai/demo/");
    expect(readdirSync(join(ws.dir, "exports/failproofai/demo")).length).toBeGreaterThan(0);
    app.unmount();
  });

  it("flags a tampered frozen policy, naming the file", async () => {
    const dir = join(ws.dir, "portfolios/demo/policies");
    const file = join(dir, readdirSync(dir)[0]!);
    writeFileSync(file, readFileSync(file, "utf8").replace("instruct", "deny"));
    const app = renderApp(ws.dir, { columns: 100, rows: 30 });
    await app.press("6");
    await app.see("✗ tampered", "SHA-256 does not match");
    expect(existsSync(file)).toBe(true);
    app.unmount();
  });
});
