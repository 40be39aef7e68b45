import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { trustEntries, writeCodexTrust } from "../../src/core/deploy/codex-trust.js";
import { type DoctorReport, diagnoseHook } from "../../src/core/deploy/doctor.js";
import {
  marketplaceName,
  PLUGIN_NAME,
  pluginId,
  writePlugin,
} from "../../src/core/deploy/plugin.js";
import { isFireCommand, readSettings } from "../../src/core/deploy/settings.js";
import { REPO_ROOT } from "../helpers/paths.js";
import { PORTFOLIO, tempWorkspace } from "./hook-helpers.js";

/**
 * `fire hook doctor` on a PLUGIN install (`fire hook install --plugin`), on real files: the
 * plugin fire writes (plugin.ts), registered the way the pinned clients record an install —
 * Claude Code 2.1.332: its copy under `plugins/cache/`, `plugins/installed_plugins.json`,
 * `enabledPlugins` in the scope's settings; Codex 0.171.0: its copy under `plugins/cache/`,
 * `[marketplaces]`, `[plugins]` and the plugin hooks' `[hooks.state]` trust in config.toml
 * (recorded from `claude plugin install` / `codex plugin add` runs; the live install in
 * test/runtime/real-client-plugin.test.ts runs doctor against the clients' own files).
 */
const HOOK = join(REPO_ROOT, "dist/runtime/hook.standalone.mjs");

function homes() {
  const home = tempWorkspace();
  const env = {
    HOME: home,
    CODEX_HOME: join(home, "codex-home"),
    CLAUDE_CONFIG_DIR: "",
    PATH: process.env.PATH ?? "",
  };
  return { home, env };
}

/** A client's copy of fire's plugin (both clients copy the plugin folder at install). */
function clientCopy(harness: "claude" | "codex", configDir: string) {
  const market = join(tempWorkspace(), "market");
  const p = writePlugin({ harness, portfolio: PORTFOLIO, dir: market, hookFile: HOOK });
  const version = `1.0.0-${p.portfolioSha.slice(0, 12)}`;
  const copy = join(configDir, "plugins", "cache", marketplaceName(harness), PLUGIN_NAME, version);
  cpSync(p.pluginDir, copy, { recursive: true });
  return { market, copy, version };
}

function claudeInstall(scope: "user" | "local") {
  const { home, env } = homes();
  const project = tempWorkspace();
  const config = join(home, ".claude");
  const { market, copy, version } = clientCopy("claude", config);
  const id = pluginId("claude");
  const at = "2026-12-02T11:18:07.653Z";
  mkdirSync(join(config, "plugins"), { recursive: true });
  writeFileSync(
    join(config, "plugins", "installed_plugins.json"),
    JSON.stringify({
      version: 2,
      plugins: {
        [id]: [
          {
            scope,
            installPath: copy,
            version,
            installedAt: at,
            lastUpdated: at,
            ...(scope === "local" ? { projectPath: project } : {}),
          },
        ],
      },
    }),
  );
  const settings =
    scope === "user"
      ? join(config, "settings.json")
      : join(project, ".claude", "settings.local.json");
  mkdirSync(join(settings, ".."), { recursive: true });
  const enable = (on: boolean) =>
    writeFileSync(
      settings,
      JSON.stringify({
        extraKnownMarketplaces: {
          [marketplaceName("claude")]: { source: { source: "directory", path: market } },
        },
        enabledPlugins: { [id]: on },
      }),
    );
  enable(true);
  const target =
    scope === "user"
      ? { harness: "claude" as const, user: true }
      : { harness: "claude" as const, project };
  const doctor = (extra: { plugin?: boolean; env?: NodeJS.ProcessEnv } = {}) =>
    diagnoseHook(
      { ...target, env: extra.env ?? env, ...(extra.plugin ? { plugin: true } : {}) },
      { claudeManagedDir: join(home, "no-managed") },
    );
  return { copy, enable, doctor, env, config, settings };
}

function codexInstall() {
  const { home, env } = homes();
  const { market, copy } = clientCopy("codex", env.CODEX_HOME);
  const config = join(env.CODEX_HOME, "config.toml");
  const user = `[marketplaces.${marketplaceName("codex")}]\nsource_type = "local"\nsource = "${market}"\n\n[plugins."${pluginId("codex")}"]\nenabled = true\n`;
  writeFileSync(config, user);
  // what `fire hook install --plugin` writes from Codex's hooks/list (hashes as Codex reports
  // them: the handler hash is the settings hook's formula over the unexpanded command)
  const trust = () => {
    const hooks = readSettings(join(copy, "hooks", "hooks.json"));
    const entries = trustEntries(`${pluginId("codex")}:hooks/hooks.json`, hooks, isFireCommand).map(
      (e) => ({
        ...e,
        contentHash: "sha256:0d36feb12df65b77c40365402106d857bb93c6fa1e7b3f74f5a3b19820b5a031",
      }),
    );
    writeCodexTrust(config, `plugin:${pluginId("codex")}`, entries);
    return entries.length;
  };
  trust();
  const doctor = (plugin = false) =>
    diagnoseHook({ harness: "codex", user: true, env, ...(plugin ? { plugin: true } : {}) });
  return { home, env, config, copy, user, trust, doctor };
}

const texts = (r: DoctorReport, level = "problem") =>
  r.findings.filter((f) => f.level === level).map((f) => f.text);

describe("fire hook doctor: a Claude Code plugin install", () => {
  for (const scope of ["user", "local"] as const)
    it(`healthy (${scope} scope): recorded, enabled, hook and pinned portfolio intact`, () => {
      const { doctor, copy } = claudeInstall(scope);
      const r = doctor(); // no settings entry: the recorded plugin is what is diagnosed
      expect(texts(r)).toEqual([]);
      expect(r.ok).toBe(true);
      expect(r.file).toBe(copy);
      expect(texts(r, "ok")).toEqual([
        expect.stringMatching(
          new RegExp(`^plugin fire-hook@fire-local-claude installed \\(${scope}\\) in `),
        ),
        expect.stringMatching(/^enabled in .*settings(\.local)?\.json$/),
        expect.stringMatching(
          /^portfolio .*payload\/portfolio\.json: sha256 [0-9a-f]{12} as pinned/,
        ),
      ]);
      expect(doctor({ plugin: true })).toEqual(r);
    });

  it("broken: disabled, a portfolio edited in the client's copy, a hook gone, no node", () => {
    const { doctor, enable, copy, env } = claudeInstall("local");
    enable(false);
    expect(texts(doctor())).toEqual([
      expect.stringMatching(
        /^plugin disabled: .*settings\.local\.json does not set "enabledPlugins"/,
      ),
    ]);
    enable(true);
    const pf = join(copy, "payload", "portfolio.json");
    writeFileSync(pf, readFileSync(pf, "utf8").replace("rm", "mv"));
    expect(texts(doctor())).toEqual([
      expect.stringMatching(
        /^modified portfolio: .* the hook command pins [0-9a-f]{12}; the hook refuses it/,
      ),
    ]);
    rmSync(pf);
    rmSync(join(copy, "payload", "fire-hook.mjs"));
    expect(texts(doctor())).toEqual([
      expect.stringMatching(/^missing portfolio: /),
      expect.stringMatching(/^missing hook: /),
    ]);
    const noNode = doctor({ env: { ...env, PATH: tempWorkspace() } });
    expect(texts(noNode)).toContainEqual(expect.stringMatching(/^missing node: .*not on PATH/));
  });

  it("broken: a hook script that is not the one fire wrote; a project with no plugin", () => {
    const { doctor, copy, config } = claudeInstall("local");
    writeFileSync(join(copy, "payload", "fire-hook.mjs"), "process.exit(0);\n");
    expect(texts(doctor())).toEqual([
      expect.stringMatching(/^modified hook: .*fire-hook\.mjs is not the hook fire wrote/),
    ]);
    // another project: nothing recorded for it, nothing in its settings
    const other = diagnoseHook(
      {
        harness: "claude",
        project: tempWorkspace(),
        env: { HOME: join(config, ".."), CLAUDE_CONFIG_DIR: "" },
      },
      { claudeManagedDir: join(config, "none") },
    );
    expect(texts(other)).toEqual([expect.stringMatching(/^not installed: no fire hook in /)]);
    const asked = diagnoseHook(
      {
        harness: "claude",
        project: tempWorkspace(),
        plugin: true,
        env: { HOME: join(config, ".."), CLAUDE_CONFIG_DIR: "" },
      },
      { claudeManagedDir: join(config, "none") },
    );
    expect(texts(asked)).toEqual([
      expect.stringMatching(
        /^not installed: .*installed_plugins\.json records no fire-hook@fire-local-claude for the local scope of /,
      ),
    ]);
  });
});

describe("fire hook doctor: a Codex plugin install", () => {
  it("healthy: recorded, enabled, intact, every hook entry trusted", () => {
    const { doctor, copy } = codexInstall();
    const r = doctor();
    expect(texts(r)).toEqual([]);
    expect(r.file).toBe(copy);
    expect(texts(r, "ok")).toEqual([
      expect.stringMatching(/^plugin fire-hook@fire-local-codex installed in .*config\.toml$/),
      expect.stringMatching(/^portfolio .*: sha256 [0-9a-f]{12} as pinned/),
      expect.stringMatching(/^trusted: all 4 hook entries of the plugin have persisted hook trust/),
    ]);
  });

  it("broken: no trust, a changed hook entry, plugins off, disabled, a copy gone", () => {
    const { doctor, config, copy, user, trust } = codexInstall();
    writeFileSync(config, user); // fire's trust block gone
    expect(texts(doctor())).toEqual([
      expect.stringMatching(
        /^untrusted: 4 of the plugin's 4 hook entries have no persisted hook trust/,
      ),
    ]);
    trust();
    const hooksFile = join(copy, "hooks", "hooks.json");
    const hooks = JSON.parse(readFileSync(hooksFile, "utf8"));
    hooks.hooks.Stop[0].hooks[0].timeout = 5;
    writeFileSync(hooksFile, JSON.stringify(hooks));
    expect(texts(doctor())).toEqual([
      expect.stringMatching(
        /^modified: 1 of the plugin's hook entries changed since they were trusted/,
      ),
    ]);
    writeFileSync(
      config,
      readFileSync(config, "utf8").replace("enabled = true", "enabled = false"),
    );
    writeFileSync(config, `[features]\nplugins = false\n\n${readFileSync(config, "utf8")}`);
    expect(texts(doctor())).toEqual([
      expect.stringMatching(/^plugin disabled: /),
      expect.stringMatching(/^feature flag: .*\[features\] plugins = false/),
      expect.stringMatching(/^modified: 1 of/),
    ]);
    rmSync(join(copy, ".."), { recursive: true });
    expect(texts(doctor(true))).toContainEqual(
      expect.stringMatching(/^missing plugin: Codex has no copy of version /),
    );
  });

  it("not installed: no plugin in config.toml, and not for a project", () => {
    const { doctor, config, env } = codexInstall();
    writeFileSync(config, "");
    expect(texts(doctor())).toEqual([expect.stringMatching(/^not installed: no fire hook in /)]);
    expect(texts(doctor(true))).toEqual([
      expect.stringMatching(
        /^not installed: .*config\.toml has no \[plugins\."fire-hook@fire-local-codex"\]/,
      ),
    ]);
    const project = diagnoseHook({ harness: "codex", project: tempWorkspace(), env, plugin: true });
    expect(texts(project)).toEqual([
      expect.stringMatching(/^not installed: Codex keeps plugins for the user only/),
    ]);
  });
});
