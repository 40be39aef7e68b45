import { spawn, spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { describeZodIssues, InvalidFieldError, NotFoundError } from "../errors.js";
import { workspacePaths } from "../workspace/paths.js";
import { type TrustEntry, writeCodexTrust } from "./codex-trust.js";
import { codexConfigToml, type InstallNote } from "./install.js";
import {
  marketplaceName,
  PLUGIN_LOG,
  PLUGIN_NAME,
  pluginId,
  type WrittenPlugin,
  writePlugin,
} from "./plugin.js";
import { type Harness, userConfigDir } from "./settings.js";
import { findOnPath } from "./which.js";

/**
 * `fire hook install|uninstall --plugin`: writes fire's hook plugin (plugin.ts) and installs
 * it with the client's OWN plugin commands, so the client records it where it records every
 * plugin (checked with Claude Code 2.1.332 and Codex 0.171.0):
 *
 * - Claude Code: `claude plugin marketplace add <dir> --scope S`, then
 *   `claude plugin install fire-hook@fire-local-claude --scope S` (S: user, or `local` for a
 *   project: its personal settings.local.json, like the settings install).
 * - Codex: `codex plugin marketplace add <dir>`, `codex plugin add fire-hook@fire-local-codex`
 *   (plugins are user-level in Codex), then the hook trust Codex needs before it runs a
 *   plugin's hooks: `[hooks.state."fire-hook@fire-local-codex:hooks/hooks.json:<event>:0:0"]`
 *   with `trusted_hash` and `trusted_content_hash` (the plugin bundle's fingerprint). Both are
 *   read from Codex itself (`codex app-server`, `hooks/list`: each hook's `currentHash`,
 *   `<hook hash>/<content hash>`), written in fire's block of config.toml. Without them
 *   `codex exec` skips the plugin's hooks silently.
 *
 * Uninstall runs the clients' uninstall and marketplace removal, removes fire's trust entries,
 * the plugin folder, and what the clients leave of fire's marketplace (their cached copy, the
 * plugin's data folder: the hook log goes with it, so `fire hook report` it first).
 */

export interface PluginTarget {
  harness: Harness;
  /** The marketplace folder (default: `<workspace>/.fire/plugins/<harness>`). */
  dir: string;
  /** A project (Claude Code: its settings.local.json); else the user's settings. */
  project?: string;
  user?: boolean;
  env?: NodeJS.ProcessEnv;
}

export interface PluginInstallRequest extends PluginTarget {
  portfolio: string;
  failClosed?: boolean;
  observe?: boolean;
}

export interface PluginReport {
  harness: Harness;
  /** The marketplace folder. */
  file: string;
  changed: boolean;
  notes: InstallNote[];
  /** The client commands that were run, in order. */
  commands: string[];
  /** Where the hook logs (the plugin's data folder). */
  log: string;
}

/** The default marketplace folder of a harness's plugin. */
export const defaultPluginDir = (workspace: string, harness: Harness): string =>
  join(workspacePaths(workspace).plugins, harness);

/** The plugin's data folder, as both clients name it: `<plugin>-<marketplace>`. */
export function pluginDataDir(harness: Harness, env: NodeJS.ProcessEnv = process.env): string {
  return join(
    userConfigDir(harness, env),
    "plugins",
    "data",
    `${PLUGIN_NAME}-${marketplaceName(harness)}`,
  );
}

/** The client binary: CLAUDE_BIN / CODEX_BIN, else `claude` / `codex` on PATH. */
export function clientBinary(
  harness: Harness,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const named = harness === "claude" ? env.CLAUDE_BIN : env.CODEX_BIN;
  if (named) return existsSync(named) ? named : undefined;
  return findOnPath(harness, env);
}

interface Client {
  bin: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  ran: string[];
}

function run(c: Client, args: string[], quiet = false): { ok: boolean; out: string } {
  c.ran.push([c.bin.split("/").pop(), ...args].join(" "));
  const r = spawnSync(c.bin, args, {
    cwd: c.cwd,
    env: c.env,
    encoding: "utf8",
    timeout: 120_000,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const out = `${r.stdout ?? ""}${r.stderr ?? ""}`;
  if (r.status !== 0 && !quiet)
    throw new Error(
      `\`${c.ran.at(-1)}\` failed (exit ${r.status ?? r.signal}): ${clientText(out) || (r.error?.message ?? "")}`,
    );
  return { ok: r.status === 0, out };
}

/** A client's output without its noise (Codex's PATH-alias warning), shortened. */
function clientText(out: string): string {
  return out
    .split("\n")
    .filter((l) => l.trim() && !/^WARNING: proceeding, even though/.test(l))
    .join(" ")
    .slice(0, 600);
}

function client(t: PluginTarget): Client {
  const env = t.env ?? process.env;
  const bin = clientBinary(t.harness, env);
  if (!bin)
    throw new NotFoundError(
      `${t.harness} not found (set ${t.harness === "claude" ? "CLAUDE_BIN" : "CODEX_BIN"} or put it on PATH): the plugin is installed with the client's own plugin commands`,
      "harness",
    );
  return { bin, cwd: resolve(t.project ?? process.cwd()), env, ran: [] };
}

function claudeScope(t: PluginTarget): string {
  return t.user ? "user" : "local";
}

function checkScope(t: PluginTarget): void {
  if (t.harness === "codex" && !t.user)
    throw new InvalidFieldError(
      "scope",
      "a Codex plugin install",
      "is for the user only (Codex keeps plugins in CODEX_HOME), not for a project",
    );
}

/** Writes fire's plugin and installs it in the client (any earlier fire plugin replaced). */
export async function installHookPlugin(req: PluginInstallRequest): Promise<PluginReport> {
  checkScope(req);
  const c = client(req);
  removeRegistration(req, c);
  const plugin = writePlugin({
    harness: req.harness,
    portfolio: req.portfolio,
    dir: req.dir,
    ...(req.failClosed ? { failClosed: true } : {}),
    ...(req.observe ? { observe: true } : {}),
  });
  const id = pluginId(req.harness);
  const notes: InstallNote[] = [];
  if (req.harness === "claude") {
    const scope = ["--scope", claudeScope(req)];
    run(c, ["plugin", "marketplace", "add", plugin.dir, ...scope]);
    run(c, ["plugin", "install", id, ...scope]);
  } else {
    run(c, ["plugin", "marketplace", "add", plugin.dir]);
    run(c, ["plugin", "add", id]);
    notes.push(await trustPluginHooks(c, plugin));
  }
  notes.push(...pluginNotes(req, plugin));
  return {
    harness: req.harness,
    file: plugin.dir,
    changed: true,
    notes,
    commands: c.ran,
    log: join(pluginDataDir(req.harness, c.env), PLUGIN_LOG),
  };
}

function pluginNotes(req: PluginInstallRequest, p: WrittenPlugin): InstallNote[] {
  const say = (m: string | null | undefined) =>
    m === null ? "none" : m === "" || m === undefined ? "every tool" : m;
  const notes: InstallNote[] = [
    {
      text: `plugin ${pluginId(req.harness)}: ${p.policies} polic(ies) from ${resolve(req.portfolio)} (sha256 ${p.portfolioSha.slice(0, 12)}), hook log in ${join(pluginDataDir(req.harness, req.env), PLUGIN_LOG)}`,
      warn: false,
    },
  ];
  if (p.matchers)
    notes.push({
      text: `tool events reach the hook only for the tools the portfolio can act on: before a call ${say(p.matchers.PreToolUse)}; after it ${say(p.matchers.PostToolUse)}`,
      warn: false,
    });
  if (req.failClosed && req.harness === "codex")
    notes.push({
      text: "fire: fail-closed covers faults inside fire only: Codex 0.171 has no onFailure, so a hook that cannot start (no node on PATH) lets the action run",
      warn: true,
    });
  return notes;
}

/** The client's uninstall of fire's plugin and marketplace; absent ones are no error. */
function removeRegistration(t: PluginTarget, c: Client): boolean {
  const id = pluginId(t.harness);
  const name = marketplaceName(t.harness);
  if (t.harness === "claude") {
    const scope = ["--scope", claudeScope(t)];
    const a = run(c, ["plugin", "uninstall", id, ...scope], true).ok;
    const b = run(c, ["plugin", "marketplace", "remove", name, ...scope], true).ok;
    return a || b;
  }
  const a = run(c, ["plugin", "remove", id], true).ok;
  const b = run(c, ["plugin", "marketplace", "remove", name], true).ok;
  const t2 = writeCodexTrust(codexConfigToml(c.env), trustGroup(t.harness), []);
  return a || b || t2.changed;
}

/** Uninstalls fire's plugin from the client, removes its trust entries and its folder. */
export function uninstallHookPlugin(t: PluginTarget): PluginReport {
  checkScope(t);
  const c = client(t);
  const removed = removeRegistration(t, c);
  const dir = resolve(t.dir);
  const hadDir = existsSync(join(dir, ".claude-plugin", "marketplace.json"));
  if (hadDir) rmSync(dir, { recursive: true, force: true });
  // what the clients leave behind of fire's own marketplace: Claude Code 2.1.332 keeps its
  // cached copy marked orphaned, Codex 0.171 an empty cache folder (checked after uninstall)
  const data = pluginDataDir(t.harness, c.env);
  const cache = join(
    userConfigDir(t.harness, c.env),
    "plugins",
    "cache",
    marketplaceName(t.harness),
  );
  for (const d of [data, cache]) if (existsSync(d)) rmSync(d, { recursive: true, force: true });
  return {
    harness: t.harness,
    file: dir,
    changed: removed || hadDir,
    notes: [],
    commands: c.ran,
    log: join(data, PLUGIN_LOG),
  };
}

const trustGroup = (harness: Harness) => `plugin:${pluginId(harness)}`;

/**
 * Trusts the plugin's hooks the way Codex's /hooks does: the hashes Codex itself computes for
 * them, read from `codex app-server` (JSON-RPC on stdio: initialize, then hooks/list).
 */
async function trustPluginHooks(c: Client, plugin: WrittenPlugin): Promise<InstallNote> {
  const id = pluginId("codex");
  c.ran.push("codex app-server (hooks/list)");
  const hooks = await listCodexHooks(c, plugin.dir);
  const mine = hooks.filter((h) => h.pluginId === id);
  if (mine.length === 0)
    throw new Error(
      `codex lists no hooks of ${id} after adding it (is the plugins feature off in ${codexConfigToml(c.env)}?)`,
    );
  const entries: TrustEntry[] = mine.map((h) => {
    const [hash, content] = h.currentHash.split("/");
    return { key: h.key, hash: hash as string, ...(content ? { contentHash: content } : {}) };
  });
  const t = writeCodexTrust(codexConfigToml(c.env), trustGroup("codex"), entries);
  return {
    text: `trusted the plugin's ${entries.length} hook entries in ${t.file} (hashes as Codex computes them; \`fire hook uninstall --plugin\` removes them)`,
    warn: false,
  };
}

interface CodexHook {
  key: string;
  pluginId?: string;
  currentHash: string;
}

/** `hooks/list` through `codex app-server`; rejects after 60 s. */
function listCodexHooks(c: Client, cwd: string): Promise<CodexHook[]> {
  return new Promise((done, fail) => {
    const child = spawn(c.bin, ["app-server"], {
      cwd: c.cwd,
      env: c.env,
      stdio: ["pipe", "pipe", "ignore"],
    });
    let buf = "";
    const timer = setTimeout(
      () => finish(new Error("codex app-server: no answer in 60 s")),
      60_000,
    );
    const finish = (err: Error | undefined, hooks?: CodexHook[]) => {
      clearTimeout(timer);
      child.stdin.end();
      child.kill();
      if (err) fail(err);
      else done(hooks ?? []);
    };
    child.on("error", (err) => finish(err));
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d: string) => {
      buf += d;
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        let msg: { id?: unknown; result?: unknown; error?: { message?: unknown } };
        try {
          msg = JSON.parse(line);
        } catch {
          continue;
        }
        if (msg.id !== 2) continue;
        if (msg.error) return finish(new Error(`codex hooks/list: ${String(msg.error.message)}`));
        try {
          return finish(undefined, readHookList(msg.result));
        } catch (err) {
          return finish(err as Error);
        }
      }
    });
    const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { clientInfo: { name: "fire", version: "1" } },
    });
    send({ jsonrpc: "2.0", method: "initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "hooks/list", params: { cwds: [cwd] } });
  });
}

/** What fire reads of Codex's hooks/list answer (every other field ignored). */
const HookList = z.looseObject({
  data: z.array(
    z.looseObject({
      hooks: z.array(
        z.looseObject({ key: z.string(), currentHash: z.string(), pluginId: z.string().nullish() }),
      ),
    }),
  ),
});

/** The hooks of a hooks/list result; an unexpected shape is an error naming what differs. */
function readHookList(result: unknown): CodexHook[] {
  const r = HookList.safeParse(result);
  if (!r.success)
    throw new Error(
      `codex hooks/list answered an unexpected shape: ${describeZodIssues(r.error.issues)}`,
    );
  return r.data.data.flatMap((d) =>
    d.hooks.map((h) => ({
      key: h.key,
      currentHash: h.currentHash,
      ...(h.pluginId ? { pluginId: h.pluginId } : {}),
    })),
  );
}
