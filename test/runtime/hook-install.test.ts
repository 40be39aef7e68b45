import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runFire } from "../helpers/cli.js";
import { clientEvents, clientOutputs, PORTFOLIO, tempWorkspace } from "./hook-helpers.js";

const USER_HOOKS = {
  model: "opus",
  hooks: {
    PreToolUse: [
      { matcher: "Bash", hooks: [{ type: "command", command: "/usr/local/bin/my-guard.sh" }] },
    ],
    Stop: [{ hooks: [{ type: "command", command: "notify-send done", timeout: 5 }] }],
    Notification: [{ hooks: [{ type: "command", command: "say hi" }] }],
  },
};

const read = (f: string) => readFileSync(f, "utf8");
type Settings = { hooks: Record<string, { matcher?: string; hooks: { command: string }[] }[]> };

describe.each([
  ["claude", ".claude/settings.json"],
  ["codex", ".codex/hooks.json"],
])("fire hook install --harness %s", (harness, rel) => {
  function setup() {
    const project = tempWorkspace();
    const file = join(project, rel);
    mkdirSync(join(file, ".."), { recursive: true });
    const original = `${JSON.stringify(USER_HOOKS, null, 2)}\n`;
    writeFileSync(file, original);
    return { project, file, original };
  }
  const install = (project: string) =>
    runFire([
      "hook",
      "install",
      "--harness",
      harness,
      "--project",
      project,
      "--portfolio",
      PORTFOLIO,
    ]);

  it("adds one fire hook per event and keeps every user hook, idempotently", () => {
    const { project, file } = setup();
    const r = install(project);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^installed: fire hook/);
    const s = JSON.parse(read(file)) as Settings & { model: string };
    expect(s.model).toBe("opus");
    expect(Object.keys(s.hooks).sort()).toEqual(
      ["Notification", "PostToolUse", "PreToolUse", "Stop", "UserPromptSubmit"].sort(),
    );
    expect(s.hooks.PreToolUse?.[0]?.hooks[0]?.command).toBe("/usr/local/bin/my-guard.sh");
    expect(s.hooks.Stop?.[0]?.hooks[0]?.command).toBe("notify-send done");
    for (const event of ["UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"]) {
      const ours = (s.hooks[event] ?? []).filter((g) =>
        g.hooks.some((h) => / hook --portfolio /.test(h.command)),
      );
      expect(ours).toHaveLength(1);
    }
    expect(s.hooks.PreToolUse?.[1]?.matcher).toBe("");
    expect(s.hooks.Stop?.[1]?.matcher).toBeUndefined();

    const once = read(file);
    const again = install(project);
    expect(again.stdout).toMatch(/^already installed/);
    expect(read(file)).toBe(once);
  });

  it("uninstall removes only fire's hooks, restoring the user's file", () => {
    const { project, file, original } = setup();
    install(project);
    const r = runFire(["hook", "uninstall", "--harness", harness, "--project", project]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^removed: fire hook/);
    expect(read(file)).toBe(original);
    const twice = runFire(["hook", "uninstall", "--harness", harness, "--project", project]);
    expect(twice.stdout).toMatch(/^not installed/);
  });

  it("the installed command is a working hook (run through the shell as the client does)", () => {
    const { project, file } = setup();
    install(project);
    const s = JSON.parse(read(file)) as Settings;
    const command = s.hooks.PreToolUse?.[1]?.hooks[0]?.command as string;
    const client = `${harness}-rm-deny`;
    const events = clientEvents(client);
    execFileSync("sh", ["-c", command], { input: JSON.stringify(events[1]), cwd: project });
    const out = execFileSync("sh", ["-c", command], {
      input: JSON.stringify(events[4]),
      cwd: project,
    });
    expect(JSON.parse(out.toString())).toEqual(clientOutputs(client)[4]);
    expect(read(join(project, ".fire/hook-log.jsonl")).trim().split("\n")).toHaveLength(2);
  });

  it("refuses to touch a settings file that is not JSON", () => {
    const { project, file } = setup();
    writeFileSync(file, "{ not json");
    const r = install(project);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/not valid JSON.*not changed/);
    expect(read(file)).toBe("{ not json");
  });
});

describe("fire hook install without --portfolio: the newest frozen portfolio", () => {
  const freeze = (ws: string, name: string, frozenAt: string) => {
    mkdirSync(join(ws, "portfolios", name), { recursive: true });
    writeFileSync(join(ws, "portfolios", name, "manifest.json"), JSON.stringify({ frozenAt }));
  };

  it("names the newest frozen portfolio by frozenAt, without a warning", () => {
    const ws = tempWorkspace();
    freeze(ws, "b-older", "2026-01-01T00:00:00.000Z");
    freeze(ws, "a-newer", "2026-03-01T00:00:00.000Z");
    const r = runFire(["hook", "install", "--harness", "claude", "--project", ws]);
    expect([r.status, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).toContain(
      "portfolio: portfolios/a-newer (newest frozen, 2026-03-01T00:00:00.000Z); the hook follows the newest frozen portfolio at every event",
    );
    const s = JSON.parse(read(join(ws, ".claude/settings.json"))) as Settings;
    const cmd = s.hooks.Stop?.[0]?.hooks[0]?.command ?? "";
    expect(cmd).not.toContain("--portfolio");
    expect(cmd).toContain(`--workspace ${ws}`);
  });

  it("warns only when nothing is frozen yet, naming where a freeze must go", () => {
    const ws = tempWorkspace();
    const r = runFire(["hook", "install", "--harness", "codex", "--project", ws]);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(`nothing frozen yet under ${join(ws, "portfolios")}/`);
    expect(r.stderr).toContain("`fire freeze`");
  });
});

describe("fire hook install --user", () => {
  it("writes ~/.claude/settings.json and $CODEX_HOME/hooks.json", () => {
    const home = tempWorkspace();
    const env = { HOME: home, CODEX_HOME: join(home, "codex-home") };
    expect(runFire(["hook", "install", "--harness", "claude", "--user"], { env }).status).toBe(0);
    const cx = runFire(["hook", "install", "--harness", "codex", "--user"], { env });
    expect([cx.status, cx.stderr]).toEqual([0, ""]);
    expect(cx.stdout).toMatch(
      /newest frozen portfolio under portfolios\/ of the directory the client runs/,
    );
    const claude = JSON.parse(read(join(home, ".claude/settings.json"))) as Settings;
    const codex = JSON.parse(read(join(home, "codex-home/hooks.json"))) as Settings;
    expect(Object.keys(claude.hooks)).toHaveLength(4);
    // user scope: no --workspace, the hook works in the directory the client runs it in
    expect(codex.hooks.Stop?.[0]?.hooks[0]?.command).not.toContain("--workspace");
  });

  it("rejects an unknown harness with a usage error", () => {
    const r = runFire(["hook", "install", "--harness", "cursor", "--project", tempWorkspace()]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--harness must be claude or codex/);
  });
});
