import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { z } from "zod";
import { describeZodIssues, InputError } from "../errors.js";
import { shellQuote } from "../shell-quote.js";

/**
 * Settings editing for `fire hook install|uninstall`: merges fire's hook command into Claude Code's
 * `.claude/settings.json` or Codex's `hooks.json` (same shape:
 * `hooks.{Event}[{matcher?, hooks:[{type:"command", command, timeout?}]}]`), keeping every
 * other key and every user hook. Idempotent; files are written atomically.
 */

export type Harness = "claude" | "codex";
export const INSTALL_EVENTS = ["UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"] as const;
/** Seconds the harness waits for the hook (both clients read `timeout` in seconds). */
export const HOOK_TIMEOUT_S = 30;

const HookHandler = z.looseObject({ type: z.string(), command: z.string().optional() });
const HookGroup = z.looseObject({ matcher: z.string().optional(), hooks: z.array(HookHandler) });
const SettingsFile = z.looseObject({
  hooks: z.record(z.string(), z.array(HookGroup)).optional(),
});
type SettingsFile = z.infer<typeof SettingsFile>;
type HookGroup = z.infer<typeof HookGroup>;

/** The settings file a harness reads for this scope. */
export function settingsPath(
  harness: Harness,
  scope: { project?: string; user?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): string {
  if (scope.user) {
    const home = env.HOME || homedir();
    return harness === "claude"
      ? join(home, ".claude", "settings.json")
      : join(env.CODEX_HOME || join(home, ".codex"), "hooks.json");
  }
  const project = resolve(scope.project ?? process.cwd());
  return harness === "claude"
    ? join(project, ".claude", "settings.json")
    : join(project, ".codex", "hooks.json");
}

/** The command fire installs: this node and this fire build, absolute paths. */
export function hookCommand(opts: {
  cliPath: string;
  portfolio?: string;
  workspace?: string;
  log?: string;
}): string {
  const words = [process.execPath, opts.cliPath, "hook"];
  if (opts.portfolio) words.push("--portfolio", resolve(opts.portfolio));
  if (opts.workspace) words.push("--workspace", resolve(opts.workspace));
  if (opts.log) words.push("--log", resolve(opts.log));
  return words.map(shellQuote).join(" ");
}

/** Whether a hook command is fire's (`… fire hook …` or `… dist/cli/main.js hook …`). */
export function isFireCommand(command: string | undefined): boolean {
  return command !== undefined && /(^|[\s'"/])(fire|main\.js)'?\s+'?hook'?(\s|$)/.test(command);
}

/** Reads a settings file (missing → {}); a file that is not settings is an InputError. */
export function readSettings(file: string): SettingsFile {
  if (!existsSync(file)) return {};
  const text = readFileSync(file, "utf8");
  if (!text.trim()) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new InputError(
      file,
      undefined,
      `not valid JSON (${(err as Error).message}); not changed`,
    );
  }
  const parsed = SettingsFile.safeParse(raw);
  if (!parsed.success)
    throw new InputError(
      file,
      undefined,
      `unexpected hooks shape: ${describeZodIssues(parsed.error.issues)}; not changed`,
    );
  return raw as SettingsFile; // the file as written: key order and unknown keys kept
}

/** Settings without any fire hook (user hooks untouched; groups/events we emptied dropped). */
export function withoutFire(settings: SettingsFile): SettingsFile {
  if (!settings.hooks) return settings;
  const hooks: Record<string, HookGroup[]> = {};
  for (const [event, groups] of Object.entries(settings.hooks)) {
    const kept = groups.flatMap((g) => {
      const rest = g.hooks.filter((h) => !isFireCommand(h.command));
      if (rest.length === g.hooks.length) return [g];
      return rest.length ? [{ ...g, hooks: rest }] : [];
    });
    if (kept.length || groups.length === 0) hooks[event] = kept;
  }
  const out: SettingsFile = { ...settings, hooks };
  if (Object.keys(hooks).length === 0) delete out.hooks;
  return out;
}

/** Settings with exactly one fire hook per event (any older fire hook replaced). */
export function withFire(settings: SettingsFile, command: string): SettingsFile {
  const base = withoutFire(settings);
  const hooks: Record<string, HookGroup[]> = { ...(base.hooks ?? {}) };
  for (const event of INSTALL_EVENTS) {
    const handler = { type: "command", command, timeout: HOOK_TIMEOUT_S };
    // Tool events: "" matches every tool in both clients; prompt/stop events take no matcher.
    const group: HookGroup =
      event === "PreToolUse" || event === "PostToolUse"
        ? { matcher: "", hooks: [handler] }
        : { hooks: [handler] };
    hooks[event] = [...(hooks[event] ?? []), group];
  }
  return { ...base, hooks };
}

export interface InstallResult {
  file: string;
  changed: boolean;
}

/** Applies `edit` to the settings file; writes (atomically) only when something changed. */
export function editSettings(file: string, edit: (s: SettingsFile) => SettingsFile): InstallResult {
  const before = readSettings(file);
  const after = edit(before);
  const changed = JSON.stringify(before) !== JSON.stringify(after);
  if (changed) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileAtomic.sync(file, `${JSON.stringify(after, null, 2)}\n`);
  }
  return { file, changed };
}
