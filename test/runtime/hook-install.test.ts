import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { fireIn } from "../helpers/cli.js";
import { clientEvents, clientOutputs, PORTFOLIO, tempWorkspace } from "./hook-helpers.js";

const USER_HOOKS = {
  model: "opus",
  hooks: {
    PreToolUse: [
      { matcher: "Bash", hooks: [{ type: "command", command: "/usr/local/bin/my-guard.sh" }] },
    ],
    Stop: [{ hooks: [{ type: "command", command: "notify-send done", timeout: 5 }] }],
    Notification: [{ hooks: [{ type: "command", command: "say hi" }] }],
    // a user's own hook whose command merely mentions "fire hook": never fire's to touch
    PostToolUse: [{ hooks: [{ type: "command", command: "npx fire hook --portfolio mine" }] }],
  },
};

const read = (f: string) => readFileSync(f, "utf8");
type Settings = { hooks: Record<string, { matcher?: string; hooks: { command: string }[] }[]> };

/** An isolated home for the clients: HOME, CLAUDE_CONFIG_DIR unset, CODEX_HOME inside. */
function clientHome(): { home: string; env: NodeJS.ProcessEnv } {
  const home = tempWorkspace();
  return { home, env: { HOME: home, CODEX_HOME: join(home, "codex-home"), CLAUDE_CONFIG_DIR: "" } };
}

describe.each([
  ["claude", ".claude/settings.local.json", ["PostToolUseFailure", "SubagentStop"]],
  ["codex", ".codex/hooks.json", []],
])("fire hook install --harness %s --project", (harness, rel, extra) => {
  function setup() {
    const project = tempWorkspace();
    const file = join(project, rel);
    mkdirSync(join(file, ".."), { recursive: true });
    const original = `${JSON.stringify(USER_HOOKS, null, 2)}\n`;
    writeFileSync(file, original);
    return { project, file, original, ...clientHome() };
  }
  const install = (project: string, env: NodeJS.ProcessEnv) =>
    fireIn(
      ["hook", "install", "--harness", harness, "--project", project, "--portfolio", PORTFOLIO],
      { env, cwd: project },
    );

  it("adds one fire hook per event and keeps every user hook, idempotently", async () => {
    const { project, file, env } = setup();
    const r = await install(project, env);
    expect([r.status, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).toMatch(/^installed: fire hook/);
    const s = JSON.parse(read(file)) as Settings & { model: string };
    expect(s.model).toBe("opus");
    expect(Object.keys(s.hooks).sort()).toEqual(
      ["Notification", "PostToolUse", "PreToolUse", "Stop", "UserPromptSubmit", ...extra].sort(),
    );
    expect(s.hooks.PreToolUse?.[0]?.hooks[0]?.command).toBe("/usr/local/bin/my-guard.sh");
    expect(s.hooks.PostToolUse?.[0]?.hooks[0]?.command).toBe("npx fire hook --portfolio mine");
    for (const event of ["UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"]) {
      const ours = (s.hooks[event] ?? []).filter((g) =>
        g.hooks.some((h) => h.command.endsWith(" # fire-hook")),
      );
      expect(ours).toHaveLength(1);
      expect(ours[0]?.hooks[0]?.command).toContain(`--portfolio ${PORTFOLIO}`);
    }
    expect(s.hooks.PreToolUse?.[1]?.matcher).toBe("");
    expect(s.hooks.Stop?.[1]?.matcher).toBeUndefined();

    const once = read(file);
    const again = await install(project, env);
    expect(again.stdout).toMatch(/^already installed/);
    expect(read(file)).toBe(once);
  });

  it("uninstall removes only fire's hooks, restoring the user's file", async () => {
    const { project, file, original, env } = setup();
    await install(project, env);
    const r = await fireIn(["hook", "uninstall", "--harness", harness, "--project", project], {
      env,
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^removed: fire hook/);
    expect(read(file)).toBe(original);
    const twice = await fireIn(["hook", "uninstall", "--harness", harness, "--project", project], {
      env,
    });
    expect(twice.stdout).toMatch(/^not installed/);
  });

  it("uninstall leaves no empty settings file behind when fire's hook was all there was", async () => {
    const project = tempWorkspace();
    const { env } = clientHome();
    expect((await install(project, env)).status).toBe(0);
    expect(existsSync(join(project, rel))).toBe(true);
    await fireIn(["hook", "uninstall", "--harness", harness, "--project", project], { env });
    expect(existsSync(join(project, rel))).toBe(false);
  });

  it("the installed command is a working hook (run through the shell as the client does)", async () => {
    const { project, file, env } = setup();
    await install(project, env);
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
    // state and log live in the fire workspace (-w, here the project), not elsewhere; a
    // resident evaluator writes an event's log line once its state is in place, after the
    // answer, so the second line may land just after the command returned
    const logged = join(project, ".fire/hook-log.jsonl");
    await vi.waitFor(() => expect(read(logged).trim().split("\n")).toHaveLength(2), {
      timeout: 10_000,
    });
  });

  it("refuses to touch a settings file that is not JSON", async () => {
    const { project, file, env } = setup();
    writeFileSync(file, "{ not json");
    const r = await install(project, env);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/not valid JSON.*not changed/);
    expect(read(file)).toBe("{ not json");
  });
});

describe("Claude Code conventions", () => {
  it("moves a hook an older fire put into the team-shared settings.json to settings.local.json", async () => {
    const project = tempWorkspace();
    const { env } = clientHome();
    const shared = join(project, ".claude/settings.json");
    mkdirSync(join(project, ".claude"));
    const legacy = `${process.execPath} /opt/fire/dist/cli/main.js hook --portfolio /opt/p --workspace ${project}`;
    writeFileSync(
      shared,
      JSON.stringify({
        model: "opus",
        hooks: { Stop: [{ hooks: [{ type: "command", command: legacy }] }] },
      }),
    );
    const r = await fireIn(
      ["hook", "install", "--harness", "claude", "--project", project, "--portfolio", PORTFOLIO],
      { env, cwd: project },
    );
    expect(r.status).toBe(0);
    expect(JSON.parse(read(shared))).toEqual({ model: "opus" });
    expect(existsSync(join(project, ".claude/settings.local.json"))).toBe(true);
  });

  it("--user honours CLAUDE_CONFIG_DIR", async () => {
    const { home, env } = clientHome();
    const dir = join(home, "claude-config");
    const r = await fireIn(
      ["hook", "install", "--harness", "claude", "--user", "--portfolio", PORTFOLIO],
      { env: { ...env, CLAUDE_CONFIG_DIR: dir }, cwd: home },
    );
    expect(r.status).toBe(0);
    expect(
      Object.keys((JSON.parse(read(join(dir, "settings.json"))) as Settings).hooks),
    ).toHaveLength(6);
    expect(existsSync(join(home, ".claude/settings.json"))).toBe(false);
  });
});

describe("fire hook install without --portfolio: the workspace's newest frozen portfolio", () => {
  const freeze = (ws: string, name: string, frozenAt: string) => {
    mkdirSync(join(ws, "portfolios", name), { recursive: true });
    writeFileSync(join(ws, "portfolios", name, "manifest.json"), JSON.stringify({ frozenAt }));
  };

  it("follows the newest frozen portfolio by frozenAt of the -w workspace", async () => {
    const ws = tempWorkspace();
    const project = tempWorkspace();
    const { env } = clientHome();
    freeze(ws, "b-older", "2026-01-01T00:00:00.000Z");
    freeze(ws, "a-newer", "2026-03-01T00:00:00.000Z");
    const r = await fireIn(
      ["hook", "install", "--harness", "claude", "--project", project, "-w", ws],
      {
        env,
      },
    );
    expect([r.status, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).toContain(
      `portfolio: portfolios/a-newer in ${ws} (newest frozen, 2026-03-01T00:00:00.000Z); the hook follows the newest frozen portfolio at every event`,
    );
    const s = JSON.parse(read(join(project, ".claude/settings.local.json"))) as Settings;
    const cmd = s.hooks.Stop?.[0]?.hooks[0]?.command ?? "";
    expect(cmd).not.toContain("--portfolio");
    expect(cmd).toContain(`--workspace ${ws}`);
  });

  it("refuses when nothing is frozen: a hook that stays silent is not installed", async () => {
    const ws = tempWorkspace();
    const { env } = clientHome();
    const r = await fireIn(["hook", "install", "--harness", "codex", "--project", ws], {
      env,
      cwd: ws,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`nothing frozen yet under ${join(ws, "portfolios")}/`);
    expect(existsSync(join(ws, ".codex/hooks.json"))).toBe(false);
  });
});

describe("fire hook install --user", () => {
  it("writes ~/.claude/settings.json and $CODEX_HOME/hooks.json, state in the -w workspace", async () => {
    const { home, env } = clientHome();
    const ws = tempWorkspace();
    const args = ["--user", "--portfolio", PORTFOLIO, "-w", ws];
    expect(
      (await fireIn(["hook", "install", "--harness", "claude", ...args], { env })).status,
    ).toBe(0);
    const cx = await fireIn(["hook", "install", "--harness", "codex", ...args], { env });
    expect([cx.status, cx.stderr]).toEqual([0, ""]);
    expect(cx.stdout).toContain(
      `trusted fire's 4 hook entries in ${join(home, "codex-home/config.toml")}`,
    );
    const claude = JSON.parse(read(join(home, ".claude/settings.json"))) as Settings;
    const codex = JSON.parse(read(join(home, "codex-home/hooks.json"))) as Settings;
    expect(Object.keys(claude.hooks)).toHaveLength(6);
    // one workspace for every project the agent opens: no .fire/ in each of them
    expect(codex.hooks.Stop?.[0]?.hooks[0]?.command).toContain(`--workspace ${ws}`);
  });

  it("rejects an unknown harness with a usage error", async () => {
    const project = tempWorkspace();
    const r = await fireIn(["hook", "install", "--harness", "cursor", "--project", project]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--harness must be claude or codex/);
  });
});
