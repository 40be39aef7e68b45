import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { parse as parseToml } from "smol-toml";
import writeFileAtomic from "write-file-atomic";
import { InputError } from "../errors.js";
import { sha256Json } from "../screening/canonical.js";
import type { SettingsFile } from "./settings.js";

/**
 * Codex's persisted hook trust (Codex CLI 0.171): a hook from a user or project layer
 * (`$CODEX_HOME/hooks.json`, `<project>/.codex/hooks.json`) runs only when the user's
 * `config.toml` holds `[hooks.state."<key>"] trusted_hash = "<hash>"` for it, where
 *
 * - key = `<absolute hooks.json path>:<event in snake_case>:<group index>:<handler index>`;
 * - hash = `sha256:` + hex sha256 of the compact JSON, keys sorted, of the hook's normalised
 *   identity `{event_name, matcher?, hooks: [{type, command, timeout, async}]}` (the matcher
 *   only for tool events; absent fields are left out, as Codex's TOML round trip does).
 *
 * (codex-rs/hooks/src/engine/discovery.rs `command_hook_hash`, config/src/fingerprint.rs
 * `version_for_toml`.) Managed layers (`/etc/codex/requirements.toml` `[hooks]`,
 * `/etc/codex/managed_config.toml`, `/etc/codex/config.toml`) need no trust: the Harbor
 * payload uses those. A project layer also needs the project trusted
 * (`[projects."<dir>"] trust_level = "trusted"`), else Codex loads it disabled.
 *
 * fire owns one marked block at the end of config.toml and rewrites only that block.
 */

const BEGIN = "# >>> fire hook trust (written by `fire hook install`; removed by uninstall) >>>";
const END = "# <<< fire hook trust <<<";

/** Events whose matcher takes part in the identity (the others drop it). */
const MATCHER_EVENTS = new Set(["PreToolUse", "PostToolUse", "PermissionRequest", "SessionStart"]);
/** Codex's default handler timeout when none is given (seconds). */
const DEFAULT_TIMEOUT_S = 600;

export interface TrustEntry {
  key: string;
  hash: string;
  /** A plugin's hook: the plugin bundle's fingerprint (`trusted_content_hash`). */
  contentHash?: string;
}

/** `PreToolUse` → `pre_tool_use` (Codex's hook_event_key_label). */
export function eventKeyLabel(event: string): string {
  return event.replace(/[A-Z]/g, (c, i: number) => (i > 0 ? "_" : "") + c.toLowerCase());
}

/** The trust hash Codex computes for one command handler. */
export function codexHookHash(
  event: string,
  matcher: string | undefined,
  handler: { command: string; timeout?: number; async?: boolean; statusMessage?: string },
): string {
  const identity = {
    event_name: eventKeyLabel(event),
    matcher: MATCHER_EVENTS.has(event) ? matcher : undefined,
    hooks: [
      {
        type: "command",
        command: handler.command,
        timeout: Math.max(1, handler.timeout ?? DEFAULT_TIMEOUT_S),
        async: handler.async ?? false,
        statusMessage: handler.statusMessage,
      },
    ],
  };
  // keys sorted at every level, absent fields left out: Codex's version_for_toml
  return `sha256:${sha256Json(identity)}`;
}

/** Trust entries for every handler in `settings` whose command `mine` accepts. */
export function trustEntries(
  hooksFile: string,
  settings: SettingsFile,
  mine: (command: string) => boolean,
): TrustEntry[] {
  const out: TrustEntry[] = [];
  for (const [event, groups] of Object.entries(settings.hooks ?? {})) {
    groups.forEach((group, gi) => {
      group.hooks.forEach((h, hi) => {
        if (h.type !== "command" || typeof h.command !== "string" || !mine(h.command)) return;
        out.push({
          key: `${hooksFile}:${eventKeyLabel(event)}:${gi}:${hi}`,
          hash: codexHookHash(event, group.matcher, {
            command: h.command,
            timeout: typeof h.timeout === "number" ? h.timeout : undefined,
            async: h.async === true,
            statusMessage: typeof h.statusMessage === "string" ? h.statusMessage : undefined,
          }),
        });
      });
    });
  }
  return out;
}

/** A fire-owned block of config.toml: the trust entries and, when asked, a trusted project. */
export interface TrustBlock {
  /** Trust entries, by the hooks file they belong to. */
  entries: Record<string, TrustEntry[]>;
  /** Project folders fire marked trusted. */
  projects: string[];
}

/**
 * JSON text safe in TOML (a basic string, or a comment): JSON leaves DEL (U+007F) raw, which
 * TOML forbids in both, so a path holding one would make config.toml unreadable to Codex.
 */
const tomlSafeJson = (v: unknown): string => JSON.stringify(v).replace(/\x7f/g, "\\u007f");
const tomlString = (s: string): string => tomlSafeJson(s);

function renderBlock(block: TrustBlock): string {
  const lines: string[] = [];
  for (const dir of [...block.projects].sort()) {
    lines.push(`[projects.${tomlString(dir)}]`, `trust_level = "trusted"`, "");
  }
  for (const file of Object.keys(block.entries).sort()) {
    for (const e of block.entries[file] ?? []) {
      lines.push(`[hooks.state.${tomlString(e.key)}]`, `trusted_hash = ${tomlString(e.hash)}`);
      if (e.contentHash) lines.push(`trusted_content_hash = ${tomlString(e.contentHash)}`);
      lines.push("");
    }
  }
  if (lines.length === 0) return "";
  return `${BEGIN}\n# fire-block ${tomlSafeJson(block)}\n${lines.join("\n").trimEnd()}\n${END}\n`;
}

function splitBlock(text: string): { rest: string; block: TrustBlock } {
  const a = text.indexOf(BEGIN);
  const b = text.indexOf(END);
  if (a < 0 || b < a) return { rest: text, block: { entries: {}, projects: [] } };
  const inner = text.slice(a, b);
  const m = /^# fire-block (.*)$/m.exec(inner);
  let block: TrustBlock = { entries: {}, projects: [] };
  try {
    if (m?.[1]) block = JSON.parse(m[1]) as TrustBlock;
  } catch {
    // an edited block: rebuilt from what install writes next
  }
  const rest = text.slice(0, a) + text.slice(b + END.length).replace(/^\n/, "");
  return { rest, block };
}

/** What config.toml says about these keys and projects (outside fire's block). */
function userTable(rest: string, file: string): Record<string, unknown> {
  try {
    return parseToml(rest) as Record<string, unknown>;
  } catch (err) {
    throw new InputError(
      file,
      undefined,
      `not valid TOML (${(err as Error).message}); not changed`,
    );
  }
}

export interface TrustEdit {
  file: string;
  changed: boolean;
  /** Project folders that fire now marks trusted (newly or already). */
  trustedProjects: string[];
}

/**
 * Rewrites fire's block in `configToml` so that `hooksFile`'s fire entries are trusted (an
 * empty list removes them) and, when `project` is given, that folder is marked trusted
 * (unless the user's own config already says how to trust it). Other content is kept.
 */
export function writeCodexTrust(
  configToml: string,
  hooksFile: string,
  entries: TrustEntry[],
  project?: { dir: string; trust: boolean },
): TrustEdit {
  const before = existsSync(configToml) ? readFileSync(configToml, "utf8") : "";
  const { rest, block } = splitBlock(before);
  const user = userTable(rest, configToml);
  const userState = ((user.hooks as Record<string, unknown> | undefined)?.state ?? {}) as Record<
    string,
    unknown
  >;
  const clash = entries.find((e) => e.key in userState);
  if (clash)
    throw new InputError(
      configToml,
      undefined,
      `already has [hooks.state."${clash.key}"] of its own; remove it (or trust fire's hook in Codex's /hooks) and install again`,
    );
  const next: TrustBlock = { entries: { ...block.entries }, projects: [...block.projects] };
  if (entries.length) next.entries[hooksFile] = entries;
  else delete next.entries[hooksFile];
  if (project) {
    const userProjects = (user.projects ?? {}) as Record<string, unknown>;
    const mine = next.projects.filter((p) => p !== project.dir);
    next.projects = project.trust && !(project.dir in userProjects) ? [...mine, project.dir] : mine;
  }
  const blockText = renderBlock(next);
  // the user's text, ending in one newline (the blank line before fire's block is fire's)
  const body = rest.trim() ? rest.replace(/\n*$/, "\n") : "";
  const after = blockText ? `${body}${body.trim() ? "\n" : ""}${blockText}` : body;
  const changed = after !== before;
  if (changed) {
    mkdirSync(dirname(configToml), { recursive: true });
    writeFileAtomic.sync(configToml, after);
  }
  const trusted = project?.trust ? [project.dir] : [];
  return { file: configToml, changed, trustedProjects: trusted };
}

/** Reads the trust state Codex will see: every `hooks.state` hash and every trusted project. */
export function readCodexTrust(configToml: string): {
  state: Record<string, string>;
  /** A plugin hook's `trusted_content_hash` (the plugin bundle's fingerprint), by key. */
  contentHashes: Record<string, string>;
  trustedProjects: Set<string>;
  hooksFeature: boolean | undefined;
} {
  if (!existsSync(configToml))
    return { state: {}, contentHashes: {}, trustedProjects: new Set(), hooksFeature: undefined };
  const table = userTable(readFileSync(configToml, "utf8"), configToml);
  const state: Record<string, string> = {};
  const raw = ((table.hooks as Record<string, unknown> | undefined)?.state ?? {}) as Record<
    string,
    { trusted_hash?: unknown; trusted_content_hash?: unknown }
  >;
  const contentHashes: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v?.trusted_hash === "string") state[k] = v.trusted_hash;
    if (typeof v?.trusted_content_hash === "string") contentHashes[k] = v.trusted_content_hash;
  }
  const trustedProjects = new Set<string>();
  for (const [dir, v] of Object.entries((table.projects ?? {}) as Record<string, unknown>))
    if ((v as { trust_level?: unknown })?.trust_level === "trusted") trustedProjects.add(dir);
  const features = table.features as Record<string, unknown> | undefined;
  const flag = features?.hooks ?? features?.codex_hooks;
  return {
    state,
    contentHashes,
    trustedProjects,
    hooksFeature: typeof flag === "boolean" ? flag : undefined,
  };
}
