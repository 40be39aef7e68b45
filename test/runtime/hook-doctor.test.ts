import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { denyCandidate, writeFrozen } from "../attacks/helpers.js";
import { fireIn } from "../helpers/cli.js";
import { hook, PORTFOLIO, tempWorkspace } from "./hook-helpers.js";

function home() {
  const dir = tempWorkspace();
  return { dir, env: { HOME: dir, CODEX_HOME: join(dir, "codex-home"), CLAUDE_CONFIG_DIR: "" } };
}
const doctor = (harness: string, scope: string[], env: NodeJS.ProcessEnv) =>
  fireIn(["hook", "doctor", "--harness", harness, ...scope], { env });

describe("fire hook doctor", () => {
  it("says the installed Codex hook will run, then names each reason it would not", async () => {
    const { dir, env } = home();
    const ws = tempWorkspace();
    const install = await fireIn(
      ["hook", "install", "--harness", "codex", "--user", "--portfolio", PORTFOLIO, "-w", ws],
      { env },
    );
    expect(install.status).toBe(0);
    const ok = await doctor("codex", ["--user"], env);
    expect([ok.status, ok.stderr]).toEqual([0, ""]);
    expect(ok.stdout).toContain("trusted: all 4 entries have persisted hook trust");
    expect(ok.stdout).toMatch(/the fire hook for codex will run\n$/);

    const config = join(dir, "codex-home/config.toml");
    const trusted = readFileSync(config, "utf8");
    writeFileSync(config, "[features]\nhooks = false\n");
    const off = await doctor("codex", ["--user"], env);
    expect(off.status).toBe(1);
    const lines = off.stderr.trim().split("\n");
    expect(lines).toEqual([
      expect.stringMatching(/^PROBLEM: feature flag: .*hooks = false, so Codex runs no hooks$/),
      expect.stringMatching(
        /^PROBLEM: untrusted: 4 of fire's 4 entries have no persisted hook trust/,
      ),
    ]);
    writeFileSync(config, trusted);

    const hooksFile = join(dir, "codex-home/hooks.json");
    const hooks = readFileSync(hooksFile, "utf8");
    writeFileSync(hooksFile, hooks.replaceAll(process.execPath, "/nowhere/bin/node"));
    const noNode = await doctor("codex", ["--user"], env);
    expect(noNode.stderr).toContain("PROBLEM: missing node: the hook runs /nowhere/bin/node");
    // the command changed, so its trusted hash no longer matches either
    expect(noNode.stderr).toContain("PROBLEM: modified: 4 of fire's entries changed");
  });

  it("names an uninstalled hook, an untrusted project, nothing frozen and a stale portfolio", async () => {
    const { env } = home();
    const project = tempWorkspace();
    const none = await doctor("claude", ["--project", project], env);
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(/^PROBLEM: not installed: no fire hook in .*settings\.local\.json/);

    const ws = tempWorkspace();
    mkdirSync(join(ws, "portfolios/p1"), { recursive: true });
    // a manifest that is not a verified frozen portfolio (edited, or half-written)
    writeFileSync(
      join(ws, "portfolios/p1/manifest.json"),
      JSON.stringify({ frozenAt: "2026-01-01" }),
    );
    const args = ["--project", project, "-w", ws, "--no-project-trust"];
    const installed = await fireIn(["hook", "install", "--harness", "codex", ...args], { env });
    expect(installed.status).toBe(0);
    const r = await doctor("codex", ["--project", project], env);
    expect(r.stderr).toContain("PROBLEM: stale portfolio:");
    expect(r.stderr).toContain(
      `PROBLEM: project not trusted: Codex loads ${project}/.codex/ disabled`,
    );

    rmSync(join(ws, "portfolios"), { recursive: true });
    const empty = await doctor("codex", ["--project", project], env);
    expect(empty.stderr).toContain(
      `PROBLEM: nothing frozen: no portfolio under ${join(ws, "portfolios")}/`,
    );
  });
  it("names a pinned portfolio a newer freeze left behind; the CLI names the flag", async () => {
    const { env } = home();
    const project = tempWorkspace();
    const ws = tempWorkspace();
    const pinned = writeFrozen(join(ws, "portfolios/old"), [denyCandidate("guard", "rm -rf")]);
    const install = ["hook", "install", "--harness", "claude", "--project", project];
    const r = await fireIn([...install, "--portfolio", pinned, "-w", ws], { env });
    expect(r.status).toBe(0);
    expect((await doctor("claude", ["--project", project], env)).status).toBe(0);

    // a later freeze (only its manifest's frozenAt decides which portfolio is the newest)
    mkdirSync(join(ws, "portfolios/new"), { recursive: true });
    writeFileSync(
      join(ws, "portfolios/new/manifest.json"),
      JSON.stringify({ frozenAt: "2027-01-01T00:00:00.000Z" }),
    );
    const stale = await doctor("claude", ["--project", project], env);
    expect(stale.status).toBe(1);
    expect(stale.stderr).toBe(
      `PROBLEM: stale portfolio: the hook is pinned to ${pinned}, but ${join(ws, "portfolios/new")} is newer (install again without naming a portfolio to follow the newest) (--portfolio)\n`,
    );
    // core's finding names the request field, not the flag
    const json = JSON.parse(
      (
        await fireIn(["hook", "doctor", "--harness", "claude", "--project", project, "--json"], {
          env,
        })
      ).stdout,
    );
    const finding = json.findings.find((f: { text: string }) =>
      f.text.startsWith("stale portfolio"),
    );
    expect(finding).toMatchObject({ level: "problem", field: "portfolio" });
    expect(finding.text).not.toContain("--");
  });

  it("says whether hook calls reach a resident evaluator, and why not", async () => {
    const { env } = home();
    const project = tempWorkspace();
    const ws = tempWorkspace();
    const install = ["hook", "install", "--harness", "claude", "--project", project];
    expect((await fireIn([...install, "--portfolio", PORTFOLIO, "-w", ws], { env })).status).toBe(
      0,
    );
    const lines = async (extra: NodeJS.ProcessEnv) =>
      (await doctor("claude", ["--project", project], { ...env, ...extra })).stdout;
    // a private runtime folder (mode 0700): none yet, then the one a hook call started
    const runtime = tempWorkspace();
    chmodSync(runtime, 0o700);
    const own = { XDG_RUNTIME_DIR: runtime, FIRE_HOOK_RESIDENT_IDLE_MS: "5000" };
    expect(await lines(own)).toMatch(/note: resident evaluator not running: the next hook call/);
    hook(
      ws,
      { session_id: "d1", hook_event_name: "UserPromptSubmit", prompt: "x", cwd: ws },
      [],
      own,
    );
    let up = "";
    for (let i = 0; i < 200 && !/resident evaluator running/.test(up); i++) {
      await new Promise((r) => setTimeout(r, 50));
      up = await lines(own);
    }
    expect(up).toMatch(/ok: resident evaluator running \(pid \d+, /);
    // a per-user folder others can enter: not used, and said so
    const open = tempWorkspace();
    mkdirSync(join(open, `fire-hook-${process.getuid?.()}`), { mode: 0o777 });
    chmodSync(join(open, `fire-hook-${process.getuid?.()}`), 0o777);
    expect(await lines({ XDG_RUNTIME_DIR: open })).toMatch(/note: resident evaluator unavailable/);
    expect(await lines({ FIRE_HOOK_RESIDENT: "0" })).toMatch(/note: resident evaluator off/);
  });
});
