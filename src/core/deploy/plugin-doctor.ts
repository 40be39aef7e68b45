import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse as parseToml } from "smol-toml";
import { z } from "zod";
import { describeZodIssues } from "../errors.js";
import { sha256Hex } from "../screening/canonical.js";
import { readCodexTrust, trustEntries } from "./codex-trust.js";
import type { DoctorFinding } from "./doctor.js";
import { PAYLOAD_HOOK_OPTIONS, readHookArgs } from "./hook-options.js";
import { PAYLOAD_HOOK, PAYLOAD_MANIFEST, PAYLOAD_PORTFOLIO } from "./payload-format.js";
import { parsePayloadManifest } from "./payload-manifest.js";
import { marketplaceName, PLUGIN_NAME, pluginId } from "./plugin.js";
import {
  type Harness,
  isFireCommand,
  readSettings,
  type SettingsFile,
  settingsPath,
  userConfigDir,
} from "./settings.js";
import { findOnPath } from "./which.js";

/**
 * `fire hook doctor` for a PLUGIN install (`fire hook install --plugin`): whether the client
 * records fire's plugin for this scope, has it enabled, and will run a hook whose files are
 * there and match the portfolio sha256 pinned in its command; for Codex, also the hook trust
 * it needs. What is read, as the pinned clients write it (Claude Code 2.1.332, Codex 0.171.0):
 *
 * - Claude Code: `<config>/plugins/installed_plugins.json` (`plugins[<id>]`: one record per
 *   scope, `{scope: "user" | "local", installPath, projectPath?}`; the hook runs from
 *   `installPath`, the client's own copy) and the scope's settings file, `enabledPlugins`
 *   (`~/.claude/settings.json` for the user, `<project>/.claude/settings.local.json` for the
 *   personal `local` scope).
 * - Codex: `$CODEX_HOME/config.toml` (`[plugins."<id>"] enabled`, `[marketplaces.<name>]
 *   source`, `[features] plugins`, the `[hooks.state."<id>:hooks/hooks.json:<event>:<g>:<h>"]`
 *   trust) and its copy under `plugins/cache/<marketplace>/fire-hook/<version>/`.
 */

const problem = (text: string): DoctorFinding => ({ level: "problem", text });
const ok = (text: string): DoctorFinding => ({ level: "ok", text });

export interface PluginScope {
  harness: Harness;
  project?: string;
  user?: boolean;
  env: NodeJS.ProcessEnv;
}

/** What the plugin doctor found, and the folder the client runs the hook from (if known). */
export interface PluginFindings {
  findings: DoctorFinding[];
  /** The file or folder the report is about: the installed copy, else the client's record. */
  file: string;
}

/** Claude Code's `installed_plugins.json` (only what fire reads; every other field ignored). */
const InstalledPlugins = z.looseObject({
  plugins: z.record(
    z.string(),
    z.array(
      z.looseObject({
        scope: z.string(),
        installPath: z.string(),
        projectPath: z.string().optional(),
        version: z.string().optional(),
      }),
    ),
  ),
});

const installedFile = (env: NodeJS.ProcessEnv) =>
  join(userConfigDir("claude", env), "plugins", "installed_plugins.json");

/** Whether the client records fire's plugin for this scope (a plugin install to diagnose). */
export function pluginRecorded(s: PluginScope): boolean {
  if (s.harness === "claude") return claudeRecord(s).record !== undefined;
  if (!s.user) return false; // Codex plugins are user-level only
  const config = codexConfig(s.env);
  return config.table !== undefined && pluginTable(config.table) !== undefined;
}

/** The plugin's findings for one harness and scope. */
export function pluginFindings(s: PluginScope): PluginFindings {
  return s.harness === "claude" ? claudePlugin(s) : codexPlugin(s);
}

type ClaudeRecord = z.infer<typeof InstalledPlugins>["plugins"][string][number];

function claudeRecord(s: PluginScope): { record?: ClaudeRecord; error?: string; file: string } {
  const file = installedFile(s.env);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "ENOENT" ? { file } : { file, error: `${file}: ${(err as Error).message}` };
  }
  const parsed = InstalledPlugins.safeParse(raw);
  if (!parsed.success) return { file, error: `${file}: ${describeZodIssues(parsed.error.issues)}` };
  const project = resolve(s.project ?? process.cwd());
  const record = (parsed.data.plugins[pluginId("claude")] ?? []).find((r) =>
    s.user
      ? r.scope === "user"
      : r.scope === "local" && r.projectPath !== undefined && resolve(r.projectPath) === project,
  );
  return record ? { file, record } : { file };
}

function claudePlugin(s: PluginScope): PluginFindings {
  const id = pluginId("claude");
  const scope = s.user ? "user" : "local";
  const { record, error, file } = claudeRecord(s);
  if (error) return { file, findings: [problem(`Claude Code's plugin list unreadable: ${error}`)] };
  const install = `fire hook install --harness claude --plugin --portfolio P ${s.user ? "--user" : "--project DIR"}`;
  if (!record)
    return {
      file,
      findings: [
        problem(
          `not installed: ${file} records no ${id} for the ${scope} scope${s.user ? "" : ` of ${resolve(s.project ?? process.cwd())}`} (run \`${install}\`)`,
        ),
      ],
    };
  const findings: DoctorFinding[] = [
    ok(`plugin ${id} installed (${scope}) in ${record.installPath}`),
  ];
  const settings = settingsPath("claude", s, s.env);
  let enabled: unknown;
  try {
    enabled = (readSettings(settings) as { enabledPlugins?: Record<string, unknown> })
      .enabledPlugins?.[id];
  } catch (err) {
    findings.push(problem((err as Error).message));
  }
  if (enabled === true) findings.push(ok(`enabled in ${settings}`));
  else
    findings.push(
      problem(
        `plugin disabled: ${settings} does not set "enabledPlugins": {"${id}": true}, so Claude Code loads none of its hooks (run \`claude plugin enable ${id} --scope ${scope}\`, or install again)`,
      ),
    );
  findings.push(...bundleFindings(record.installPath, "claude", s.env));
  return { file: record.installPath, findings };
}

interface CodexConfig {
  file: string;
  table?: Record<string, unknown>;
  error?: string;
}

function codexConfig(env: NodeJS.ProcessEnv): CodexConfig {
  const file = join(userConfigDir("codex", env), "config.toml");
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "ENOENT" ? { file } : { file, error: (err as Error).message };
  }
  try {
    return { file, table: parseToml(text) as Record<string, unknown> };
  } catch (err) {
    return { file, error: `not valid TOML (${(err as Error).message})` };
  }
}

function asRecord(x: unknown): Record<string, unknown> | undefined {
  return typeof x === "object" && x !== null && !Array.isArray(x)
    ? (x as Record<string, unknown>)
    : undefined;
}

function pluginTable(table: Record<string, unknown>): Record<string, unknown> | undefined {
  return asRecord(asRecord(table.plugins)?.[pluginId("codex")]);
}

function codexPlugin(s: PluginScope): PluginFindings {
  const id = pluginId("codex");
  const config = codexConfig(s.env);
  const install = "fire hook install --harness codex --user --plugin --portfolio P";
  if (!s.user)
    return {
      file: config.file,
      findings: [
        problem(
          `not installed: Codex keeps plugins for the user only (CODEX_HOME); diagnose with --user (\`${install}\`)`,
        ),
      ],
    };
  if (config.error)
    return { file: config.file, findings: [problem(`${config.file}: ${config.error}`)] };
  const table = config.table ?? {};
  const plugin = pluginTable(table);
  if (!plugin)
    return {
      file: config.file,
      findings: [
        problem(`not installed: ${config.file} has no [plugins."${id}"] (run \`${install}\`)`),
      ],
    };
  const findings: DoctorFinding[] = [ok(`plugin ${id} installed in ${config.file}`)];
  if (plugin.enabled !== true)
    findings.push(
      problem(
        `plugin disabled: ${config.file} has [plugins."${id}"] without enabled = true, so Codex loads none of its hooks (install again)`,
      ),
    );
  const features = asRecord(table.features);
  if (features?.plugins === false)
    findings.push(
      problem(
        `feature flag: ${config.file} sets [features] plugins = false, so Codex loads no plugin`,
      ),
    );
  const hooksFlag = features?.hooks ?? features?.codex_hooks;
  if (hooksFlag === false)
    findings.push(
      problem(`feature flag: ${config.file} sets [features] hooks = false, so Codex runs no hooks`),
    );
  const copy = codexCopy(table, s.env);
  if (!copy.dir) {
    findings.push(problem(`missing plugin: ${copy.why} (install again)`));
    return { file: config.file, findings };
  }
  findings.push(...bundleFindings(copy.dir, "codex", s.env));
  findings.push(...codexTrustFindings(copy.dir, config.file));
  return { file: copy.dir, findings };
}

/**
 * Codex's copy of the plugin: `plugins/cache/<marketplace>/fire-hook/<version>/`, the version
 * the marketplace folder names (the one Codex copied when it was added), else the only one.
 */
function codexCopy(
  table: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): { dir?: string; why: string } {
  const base = join(
    userConfigDir("codex", env),
    "plugins",
    "cache",
    marketplaceName("codex"),
    PLUGIN_NAME,
  );
  const source = asRecord(asRecord(table.marketplaces)?.[marketplaceName("codex")])?.source;
  let version: string | undefined;
  if (typeof source === "string") {
    try {
      const m = JSON.parse(
        readFileSync(join(source, ".claude-plugin", "marketplace.json"), "utf8"),
      ) as {
        plugins?: { name?: unknown; version?: unknown }[];
      };
      const v = m.plugins?.find((p) => p?.name === PLUGIN_NAME)?.version;
      if (typeof v === "string") version = v;
    } catch {
      // the marketplace folder is gone: Codex still has its copy
    }
  }
  if (version !== undefined) {
    const dir = join(base, version);
    return existsSync(dir)
      ? { dir, why: "" }
      : { why: `Codex has no copy of version ${version} at ${dir}` };
  }
  let versions: string[] = [];
  try {
    versions = readdirSync(base).filter((v) => !v.startsWith("."));
  } catch {
    // no copy at all
  }
  if (versions.length === 1) return { dir: join(base, versions[0] as string), why: "" };
  return {
    why:
      versions.length === 0
        ? `Codex has no copy of the plugin under ${base}`
        : `Codex holds ${versions.length} versions under ${base} and the marketplace folder naming the current one is gone`,
  };
}

/** Codex runs a plugin's hook only with its persisted trust: both hashes, for every fire entry. */
function codexTrustFindings(dir: string, configFile: string): DoctorFinding[] {
  const hooksFile = join(dir, "hooks", "hooks.json");
  let hooks: SettingsFile;
  try {
    hooks = readSettings(hooksFile);
  } catch {
    return []; // bundleFindings named it
  }
  let trust: ReturnType<typeof readCodexTrust>;
  try {
    trust = readCodexTrust(configFile);
  } catch (err) {
    return [problem(`Codex config unreadable: ${(err as Error).message}`)];
  }
  // the key Codex gives a plugin's hook: `<plugin id>:hooks/hooks.json:<event>:<group>:<handler>`
  const wanted = trustEntries(`${pluginId("codex")}:hooks/hooks.json`, hooks, isFireCommand);
  const untrusted = wanted.filter(
    (e) => trust.state[e.key] === undefined || trust.contentHashes[e.key] === undefined,
  );
  const modified = wanted.filter(
    (e) => trust.state[e.key] !== undefined && trust.state[e.key] !== e.hash,
  );
  const out: DoctorFinding[] = [];
  if (untrusted.length)
    out.push(
      problem(
        `untrusted: ${untrusted.length} of the plugin's ${wanted.length} hook entries have no persisted hook trust (trusted_hash and trusted_content_hash) in ${configFile}; Codex skips them without a word (install again)`,
      ),
    );
  if (modified.length)
    out.push(
      problem(
        `modified: ${modified.length} of the plugin's hook entries changed since they were trusted in ${configFile}; Codex skips them (install again)`,
      ),
    );
  if (!untrusted.length && !modified.length && wanted.length)
    out.push(
      ok(
        `trusted: all ${wanted.length} hook entries of the plugin have persisted hook trust in ${configFile}`,
      ),
    );
  return out;
}

/**
 * The words of a plugin hook command as fire writes it (plugin.ts `pluginCommand`): plain
 * words, and "…" around the paths holding the plugin's variables, which the shell expands.
 */
function pluginWords(command: string): string[] {
  return [...command.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map(
    (m) => (m[1] ?? m[2] ?? m[3]) as string,
  );
}

/** sha256 of a file's bytes, or undefined when it cannot be read. */
function fileSha(file: string): string | undefined {
  try {
    return sha256Hex(readFileSync(file));
  } catch {
    return undefined;
  }
}

/**
 * The installed copy the client runs: `hooks/hooks.json` with fire's command, the hook it
 * names, and the portfolio whose sha256 the command pins (the hook refuses any other, so a
 * mismatch is a hook that answers nothing); `node` on PATH.
 */
function bundleFindings(dir: string, harness: Harness, env: NodeJS.ProcessEnv): DoctorFinding[] {
  const hooksFile = join(dir, "hooks", "hooks.json");
  let hooks: SettingsFile;
  try {
    hooks = readSettings(hooksFile);
  } catch (err) {
    return [problem(`missing plugin hooks: ${(err as Error).message}`)];
  }
  const commands = new Set<string>();
  for (const groups of Object.values(hooks.hooks ?? {}))
    for (const g of groups)
      for (const h of g.hooks) if (isFireCommand(h.command)) commands.add(h.command as string);
  if (commands.size === 0)
    return [
      problem(
        `missing plugin hooks: ${hooksFile} ${existsSync(hooksFile) ? "holds no fire hook" : "does not exist"} (install again)`,
      ),
    ];
  const out: DoctorFinding[] = [];
  const hook = join(dir, "payload", PAYLOAD_HOOK);
  const portfolio = join(dir, "payload", PAYLOAD_PORTFOLIO);
  for (const command of commands) {
    const words = pluginWords(command);
    const mark = words?.findIndex((w) => w.startsWith("#")) ?? -1;
    const args = words?.slice(2, mark < 0 ? undefined : mark) ?? [];
    const pinned = readHookArgs(args, PAYLOAD_HOOK_OPTIONS).values.sha256;
    if (words?.[0] !== "node" || typeof pinned !== "string") {
      out.push(problem(`cannot read the plugin's hook command: ${command}`));
      continue;
    }
    const sha = fileSha(portfolio);
    if (sha === undefined)
      out.push(
        problem(
          `missing portfolio: ${portfolio} does not exist, so the hook stays silent (install again)`,
        ),
      );
    else if (sha !== pinned)
      out.push(
        problem(
          `modified portfolio: ${portfolio} has sha256 ${sha.slice(0, 12)}, the hook command pins ${pinned.slice(0, 12)}; the hook refuses it and stays silent (install again)`,
        ),
      );
    else
      out.push(
        ok(`portfolio ${portfolio}: sha256 ${pinned.slice(0, 12)} as pinned in the hook command`),
      );
  }
  const hookSha = fileSha(hook);
  if (hookSha === undefined)
    out.push(problem(`missing hook: ${hook} does not exist (install again)`));
  else {
    let listed: string | undefined;
    const manifestFile = join(dir, "payload", PAYLOAD_MANIFEST);
    try {
      listed = parsePayloadManifest(readFileSync(manifestFile, "utf8"), manifestFile).files[
        PAYLOAD_HOOK
      ];
    } catch {
      listed = undefined; // no readable manifest: nothing says this hook is fire's
    }
    if (listed !== hookSha)
      out.push(
        problem(
          `modified hook: ${hook} is not the hook fire wrote (${listed === undefined ? `no sha256 for it in ${PAYLOAD_MANIFEST}` : `sha256 ${hookSha.slice(0, 12)}, written ${listed.slice(0, 12)}`}) (install again)`,
        ),
      );
  }
  if (!findOnPath("node", env))
    out.push(
      problem(
        `missing node: the plugin's hook runs \`node\`, which is not on PATH here${harness === "claude" ? "" : " (Codex then lets every action run)"}`,
      ),
    );
  return out;
}
