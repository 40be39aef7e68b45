import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  marketplaceName,
  PLUGIN_NAME,
  pluginId,
  writePlugin,
} from "../../src/core/deploy/plugin.js";
import { pluginDataDir } from "../../src/core/deploy/plugin-install.js";
import { parseHookLog } from "../../src/core/hook-log.js";
import { REPO_ROOT } from "../helpers/paths.js";

/**
 * `fire hook install --plugin`: fire's hook as a plugin of the client, with nothing of this
 * machine in it. The first block runs the plugin's own hook command (as the clients run it:
 * `sh -c` with CLAUDE_PLUGIN_ROOT / CLAUDE_PLUGIN_DATA set); the second installs it in the
 * REAL clients (Claude Code 2.1.332, Codex 0.171.0, scripted model on loopback through
 * ../shared/realclients, no rig hooks, Codex without --dangerously-bypass-hook-trust), runs a
 * session, reads fire's hook log, and uninstalls. It is skipped, with the reason printed, only
 * where a client or the rig is not installed (CLAUDE_BIN / CODEX_BIN, FIRE_RC_CLIENTS=<folder
 * with node_modules/.bin>, ../rc-clients beside the repository, or PATH; FIRE_RC_RIG).
 */
const FIRE = join(REPO_ROOT, "dist/cli/fire.cjs");
const HOOK = join(REPO_ROOT, "dist/runtime/hook.standalone.mjs");
const PORTFOLIO = join(REPO_ROOT, "test/runtime/fixtures/portfolio");
const RIG = resolve(process.env.FIRE_RC_RIG ?? join(REPO_ROOT, "../shared/realclients"));
const roots: string[] = [];
const scratch = (name: string) => {
  const d = mkdtempSync(join(tmpdir(), `fire-plugin-${name}-`));
  roots.push(d);
  return d;
};
afterAll(() => {
  for (const d of roots) rmSync(d, { recursive: true, force: true });
});

type Hooks = { hooks: Record<string, { matcher?: string; hooks: { command: string }[] }[]> };

describe("the plugin fire writes", () => {
  it("names no path of this machine, and its hook command denies as fire's hook does", () => {
    const root = scratch("unit");
    const p = writePlugin({
      harness: "claude",
      portfolio: PORTFOLIO,
      dir: join(root, "mkt"),
      hookFile: HOOK,
    });
    const hooks = JSON.parse(
      readFileSync(join(p.pluginDir, "hooks", "hooks.json"), "utf8"),
    ) as Hooks;
    const commands = Object.values(hooks.hooks).flatMap((gs) =>
      gs.flatMap((g) => g.hooks.map((h) => h.command)),
    );
    expect(commands.length).toBe(6); // Claude Code: the four events + PostToolUseFailure, SubagentStop
    expect(new Set(commands)).toEqual(new Set([p.command]));
    for (const text of [
      ...commands,
      readFileSync(join(p.dir, ".claude-plugin/marketplace.json"), "utf8"),
    ]) {
      expect(text).not.toContain(REPO_ROOT);
      expect(text).not.toContain(root);
      expect(text).not.toContain(tmpdir());
    }
    expect(p.command).toContain(`"\${CLAUDE_PLUGIN_ROOT}/payload/fire-hook.mjs"`);
    // the clients run it with sh -c and these two set (checked in the live block below)
    const data = join(root, "data");
    const env = { ...process.env, CLAUDE_PLUGIN_ROOT: p.pluginDir, CLAUDE_PLUGIN_DATA: data };
    const base = { session_id: "s1", transcript_path: join(root, "t.jsonl"), cwd: root };
    const run = (e: object) =>
      spawnSync("sh", ["-c", p.command], { input: JSON.stringify(e), env, encoding: "utf8" });
    const prompt = "Clean up the build directory, then list what is left.";
    expect(run({ ...base, hook_event_name: "UserPromptSubmit", prompt }).status).toBe(0);
    const call = (command: string) =>
      run({ ...base, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command } });
    const denied = call("rm -rf build");
    expect(denied.status).toBe(0);
    expect(JSON.parse(denied.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
    expect(call("ls").stdout.trim()).toBe("");
    const log = parseHookLog(readFileSync(join(data, "hook-log.jsonl"), "utf8"), "log");
    expect(log.entries.map((e) => e.verdict.action)).toEqual(["allow", "deny", "allow"]);
    // a portfolio edited inside the installed plugin no longer matches the pinned sha256
    const pf = join(p.pluginDir, "payload", "portfolio.json");
    writeFileSync(pf, readFileSync(pf, "utf8").replace("rm", "mv"));
    expect(call("rm -rf build").stdout.trim()).toBe("");
    const last = parseHookLog(readFileSync(join(data, "hook-log.jsonl"), "utf8"), "log").entries.at(
      -1,
    );
    expect(last?.error).toMatch(/fails its hash check/);
  });
});

/** The client binary, or undefined (then its live case is skipped with the reason). */
function clientBin(client: "claude" | "codex"): string | undefined {
  const named = client === "claude" ? process.env.CLAUDE_BIN : process.env.CODEX_BIN;
  if (named) return existsSync(named) ? named : undefined;
  const dirs = [process.env.FIRE_RC_CLIENTS, join(REPO_ROOT, "../rc-clients")].filter(
    (d): d is string => !!d,
  );
  for (const d of dirs) {
    const bin = join(d, "node_modules/.bin", client);
    if (existsSync(bin)) return bin;
  }
  const r = spawnSync("sh", ["-c", `command -v ${client}`], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function readiness(client: "claude" | "codex"): string | undefined {
  if (!existsSync(FIRE)) return `no build at ${FIRE} (npm run build)`;
  if (!existsSync(join(RIG, `run-${client}.sh`)))
    return `no real-client rig at ${RIG} (FIRE_RC_RIG)`;
  if (!clientBin(client))
    return `${client} not installed (CLAUDE_BIN / CODEX_BIN / FIRE_RC_CLIENTS)`;
  return undefined;
}

/** Every file under `dir` whose text mentions fire's plugin (relative paths). */
function mentions(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const f = join(d, e.name);
      // the client's own telemetry queue (unsent here) records plugin names: not settings
      if (e.isDirectory()) {
        if (e.name !== "telemetry") walk(f);
      } else if (e.isFile() && /\.(json|toml)$/.test(e.name)) {
        const text = readFileSync(f, "utf8");
        if (text.includes(PLUGIN_NAME) || text.includes("fire-local"))
          out.push(f.slice(dir.length));
      }
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

for (const client of ["claude", "codex"] as const) {
  const reason = readiness(client);
  if (reason) process.stderr.write(`\n*** SKIPPED live plugin case for ${client}: ${reason}\n`);
  describe.skipIf(reason !== undefined)(
    `fire hook install --plugin, live in the real ${client}`,
    () => {
      it("installs with the client's plugin commands, the hook acts in a session, and uninstall leaves nothing", () => {
        const root = scratch(client);
        const out = join(root, "run");
        const work = join(root, "work");
        const dir = join(root, "plugin");
        mkdirSync(work, { recursive: true });
        const bin = clientBin(client) as string;
        const install = `node '${FIRE}' hook install --harness ${client} --user --plugin '${dir}' --portfolio '${PORTFOLIO}' -w '${root}'`;
        // the rig turns Codex's plugins feature off (its default is on): back on, as a user has it
        const pre =
          client === "codex"
            ? `sed -i 's/^plugins = false/plugins = true/' "$CODEX_HOME/config.toml" && ${install}`
            : install;
        const env = {
          ...process.env,
          [client === "claude" ? "CLAUDE_BIN" : "CODEX_BIN"]: bin,
          RC_HOOKS: "none",
          RC_CODEX_HOOK_TRUST: "none",
          RC_OUT: out,
          RC_TIMEOUT: "90",
          RC_PRE_CLIENT: pre,
        };
        const r = spawnSync(
          "bash",
          [join(RIG, `run-${client}.sh`), join(RIG, "scripts/rm-deny-stop.json"), work, "-"],
          { env, encoding: "utf8", timeout: 200_000 },
        );
        const preText = readFileSync(join(out, "pre-client.txt"), "utf8");
        expect(preText, r.stderr).toContain(`installed: fire hook plugin for ${client}`);
        expect(preText).toContain(`ran: ${client} plugin marketplace add ${dir}`);
        expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);

        // the client's own homes of this run (the rig isolates them)
        const state = join(out, "state");
        const homeEnv = {
          ...process.env,
          HOME: join(state, "home"),
          ...(client === "codex" ? { CODEX_HOME: join(state, "codex-home") } : {}),
          [client === "claude" ? "CLAUDE_BIN" : "CODEX_BIN"]: bin,
        };
        const configDir =
          client === "claude" ? join(state, "home", ".claude") : join(state, "codex-home");
        const data = pluginDataDir(client, homeEnv);
        expect(data.startsWith(configDir)).toBe(true);
        // fire's hook ran in the session: its log lines, a deny and a Stop instruction
        const log = parseHookLog(readFileSync(join(data, "hook-log.jsonl"), "utf8"), "hook-log");
        expect(log.errors).toEqual([]);
        expect(log.entries.length).toBeGreaterThan(3);
        expect(log.entries.every((e) => e.harness === client && e.error === undefined)).toBe(true);
        const deny = log.entries.find((e) => e.verdict.action === "deny");
        expect(deny?.command).toBe("rm -rf build");
        expect(deny?.firings.map((f) => f.ruleId)).toEqual(["no-rm-rf"]);
        const stop = log.entries.find((e) => e.event === "Stop" && e.firings.length > 0);
        expect(stop?.firings.map((f) => f.ruleId)).toEqual(["list-before-stop"]);
        // and the model saw both (the rig's expectations on the scripted turns)
        const check = spawnSync("node", [join(RIG, "check-run.mjs"), out, "--expect-all"], {
          encoding: "utf8",
        });
        expect(check.stdout).toContain("PASS");
        expect(mentions(configDir).length).toBeGreaterThan(0);
        // doctor reads the client's own records of the install and says it will run
        const doctor = (...extra: string[]) =>
          spawnSync("node", [FIRE, "hook", "doctor", "--harness", client, "--user", ...extra], {
            env: homeEnv,
            encoding: "utf8",
          });
        const healthy = doctor();
        expect(healthy.status, `${healthy.stdout}\n${healthy.stderr}`).toBe(0);
        expect(healthy.stdout).toContain(`ok: plugin ${pluginId(client)} installed`);
        expect(healthy.stdout).toContain(`the fire hook for ${client} will run`);

        const un = spawnSync(
          "node",
          [FIRE, "hook", "uninstall", "--harness", client, "--user", "--plugin", dir],
          { env: homeEnv, encoding: "utf8", timeout: 120_000 },
        );
        expect(un.status, un.stderr).toBe(0);
        expect(un.stdout).toContain(`removed: fire hook plugin for ${client}`);
        // clean: no file of the client's home names fire's plugin, no folder of it is left
        expect(mentions(configDir)).toEqual([]);
        expect(existsSync(data)).toBe(false);
        expect(existsSync(join(configDir, "plugins", "cache", marketplaceName(client)))).toBe(
          false,
        );
        expect(existsSync(dir)).toBe(false);
        const gone = doctor("--plugin");
        expect(gone.status).toBe(1);
        expect(gone.stderr).toMatch(/PROBLEM: not installed: /);
        const list = spawnSync(bin, ["plugin", "list"], { env: homeEnv, encoding: "utf8" });
        expect(`${list.stdout}`).not.toContain(pluginId(client));
      }, 300_000);
    },
  );
}
