import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { z } from "zod";
import { describeZodIssues, InputError } from "../errors.js";
import { shellQuote } from "../shell-quote.js";
import { HARNESS_EVENTS, type Harness } from "./hook-events.js";
import { HOOK_OPTIONS, hookArgWords, readHookArgs } from "./hook-options.js";

/**
 * Settings editing for `fire hook install|uninstall`: merges fire's hook command into Claude Code's
 * `.claude/settings.json` or Codex's `hooks.json` (same shape:
 * `hooks.{Event}[{matcher?, hooks:[{type:"command", command, timeout?}]}]`), keeping every
 * other key and every user hook. Idempotent; files are written atomically.
 */

export { HARNESS_EVENTS, type Harness, INSTALL_EVENTS } from "./hook-events.js";

const TOOL_EVENTS = new Set(["PreToolUse", "PostToolUse", "PostToolUseFailure"]);
/** Seconds the harness waits for the hook (both clients read `timeout` in seconds). */
export const HOOK_TIMEOUT_S = 30;

const HookHandler = z.looseObject({ type: z.string(), command: z.string().optional() });
const HookGroup = z.looseObject({ matcher: z.string().optional(), hooks: z.array(HookHandler) });
const SettingsFile = z.looseObject({
  hooks: z.record(z.string(), z.array(HookGroup)).optional(),
});
export type SettingsFile = z.infer<typeof SettingsFile>;
type HookGroup = z.infer<typeof HookGroup>;

/** Where a harness keeps its user-level files. */
export function userConfigDir(harness: Harness, env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HOME || homedir();
  return harness === "claude"
    ? env.CLAUDE_CONFIG_DIR || join(home, ".claude")
    : env.CODEX_HOME || join(home, ".codex");
}

/**
 * The settings file fire writes for this scope. Claude Code: the user's settings under
 * `CLAUDE_CONFIG_DIR` (else `~/.claude`), or a project's personal, not team-shared,
 * `.claude/settings.local.json` (the hook command holds machine-specific absolute paths).
 * Codex: `hooks.json` in `CODEX_HOME` (else `~/.codex`) or in the project's `.codex/`.
 */
export function settingsPath(
  harness: Harness,
  scope: { project?: string; user?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): string {
  if (scope.user)
    return join(userConfigDir(harness, env), harness === "claude" ? "settings.json" : "hooks.json");
  const project = resolve(scope.project ?? process.cwd());
  return harness === "claude"
    ? join(project, ".claude", "settings.local.json")
    : join(project, ".codex", "hooks.json");
}

/**
 * Marks the commands fire installs (a trailing shell comment: both clients run hook commands
 * with `sh -c`), so install and uninstall touch fire's own entries and nothing else.
 */
export const FIRE_MARK = "# fire-hook";

/** The command fire installs: this node and this fire build, absolute paths, marked. */
export function hookCommand(opts: {
  cliPath: string;
  portfolio?: string;
  workspace?: string;
  log?: string;
  node?: string;
  /** A fault in fire denies the tool call (`fire hook --fail-closed`). */
  failClosed?: boolean;
  /** Observe mode: the hook evaluates and logs, and answers nothing. */
  observe?: boolean;
}): string {
  const abs = (p: string | undefined) => (p ? resolve(p) : undefined);
  const words = [
    opts.node ?? process.execPath,
    opts.cliPath,
    "hook",
    ...hookArgWords(HOOK_OPTIONS, {
      observe: opts.observe,
      "fail-closed": opts.failClosed,
      portfolio: abs(opts.portfolio),
      workspace: abs(opts.workspace),
      log: abs(opts.log),
    }),
  ];
  return markCommand(words.map(shellQuote).join(" "));
}

/** Appends fire's mark to a hook command line. */
export function markCommand(command: string): string {
  return `${command} ${FIRE_MARK}`;
}

/**
 * Whether a hook command is one fire installed: it ends with fire's mark, or (an install by
 * an older fire, before the mark) it is exactly `<node> <…/cli/main.js|fire.cjs> hook [flags]`
 * with absolute paths. A user's command that merely contains "fire hook" is not.
 */
export function isFireCommand(command: string | undefined): boolean {
  if (command === undefined) return false;
  if (command.trimEnd().endsWith(` ${FIRE_MARK}`)) return true;
  const words = shellWords(command);
  if (!words || words.length < 3) return false;
  const [node, cli, verb, ...rest] = words as [string, string, string, ...string[]];
  if (!/^\/\S*\/node(js)?[\d.]*$/.test(node) || !/^\/\S*\/cli\/(main\.js|fire\.cjs)$/.test(cli))
    return false;
  // an unmarked command is fire's only if it uses just the options `fire hook` takes
  return verb === "hook" && readHookArgs(rest, HOOK_OPTIONS).ok;
}

/** Splits a command line quoted the way fire quotes (plain words, '…' and \' escapes). */
export function shellWords(command: string): string[] | undefined {
  const out: string[] = [];
  const re = /\s*((?:[^\s'"\\]+|'[^']*'|\\.)+)/gy;
  let end = 0;
  for (let m = re.exec(command); m; m = re.exec(command)) {
    end = re.lastIndex;
    out.push(
      (m[1] as string).replace(/'([^']*)'|\\(.)/g, (_x, q?: string, e?: string) => q ?? e ?? ""),
    );
  }
  return command.slice(end).trim() ? undefined : out;
}

/**
 * A fire hook command switched to observe mode (`--observe` after `hook`) or to enforce
 * (without it); undefined when the command cannot be read as words.
 */
export function withObserveFlag(command: string, observe: boolean): string | undefined {
  const bare = command.trimEnd().endsWith(` ${FIRE_MARK}`)
    ? command.trimEnd().slice(0, -FIRE_MARK.length - 1)
    : command;
  const words = shellWords(bare);
  const at = words?.indexOf("hook") ?? -1;
  if (!words || at < 0) return undefined;
  const rest = words.slice(at + 1).filter((w) => w !== "--observe");
  const out = [...words.slice(0, at + 1), ...(observe ? ["--observe"] : []), ...rest];
  return markCommand(out.map(shellQuote).join(" "));
}

/** Whether an installed fire hook command runs in observe mode. */
export function observesCommand(command: string): boolean {
  return shellWords(command)?.includes("--observe") === true;
}

/** Settings with every fire hook command switched to observe or enforce. */
export function withFireMode(settings: SettingsFile, observe: boolean): SettingsFile {
  if (!settings.hooks) return settings;
  const hooks: Record<string, HookGroup[]> = {};
  for (const [event, groups] of Object.entries(settings.hooks))
    hooks[event] = groups.map((g) => ({
      ...g,
      hooks: g.hooks.map((h) => {
        if (!isFireCommand(h.command)) return h;
        const command = withObserveFlag(h.command as string, observe);
        return command === undefined ? h : { ...h, command };
      }),
    }));
  return { ...settings, hooks };
}

/** The fire hook commands installed in these settings. */
export function fireCommands(settings: SettingsFile): string[] {
  return Object.values(settings.hooks ?? {}).flatMap((groups) =>
    groups.flatMap((g) =>
      g.hooks.flatMap((h) => (isFireCommand(h.command) ? [h.command as string] : [])),
    ),
  );
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

/** How fire's entries are written, beyond the command. */
export interface FireEntryOptions {
  /**
   * Claude Code: `onFailure: "block"` on the PreToolUse handler, so a hook that cannot start,
   * crashes or times out blocks the tool call, as `--fail-closed` does for a fault inside fire
   * (checked with the real Claude Code 2.1.332: a missing hook command then answers the tool
   * call "blocking because onFailure is \"block\""; on UserPromptSubmit it would refuse the
   * prompt itself, so the other events keep the default). Codex 0.171 has no such field:
   * there a hook that cannot start lets the action run.
   */
  blockOnFailure?: boolean;
  /**
   * The matcher of each tool event (`PreToolUse`, `PostToolUse`, `PostToolUseFailure`): ""
   * (every tool, the default), exact tool names joined by `|`, or null: not registered (no
   * tool can matter there). From core/deploy/tool-filter.ts.
   */
  matchers?: Partial<Record<string, string | null>>;
}

/** Settings with exactly one fire hook per event (any older fire hook replaced). */
export function withFire(
  settings: SettingsFile,
  command: string,
  harness: Harness,
  opts: FireEntryOptions = {},
): SettingsFile {
  const base = withoutFire(settings);
  const hooks: Record<string, HookGroup[]> = { ...(base.hooks ?? {}) };
  const block = opts.blockOnFailure === true && harness === "claude";
  for (const event of HARNESS_EVENTS[harness]) {
    const handler = {
      type: "command",
      command,
      timeout: HOOK_TIMEOUT_S,
      ...(block && event === "PreToolUse" ? { onFailure: "block" } : {}),
    };
    // Tool events: "" matches every tool in both clients; prompt/stop events take no matcher.
    const given = opts.matchers?.[event];
    const matcher = TOOL_EVENTS.has(event) ? (given === undefined ? "" : given) : undefined;
    if (matcher === null) continue;
    const group: HookGroup =
      matcher !== undefined ? { matcher, hooks: [handler] } : { hooks: [handler] };
    hooks[event] = [...(hooks[event] ?? []), group];
  }
  return { ...base, hooks };
}

export interface InstallResult {
  file: string;
  changed: boolean;
  /** The settings as written (or as they are, when unchanged). */
  settings: SettingsFile;
}

/** Applies `edit` to the settings file; writes (atomically) only when something changed. */
export function editSettings(file: string, edit: (s: SettingsFile) => SettingsFile): InstallResult {
  const before = readSettings(file);
  const after = edit(before);
  const changed = JSON.stringify(before) !== JSON.stringify(after);
  if (changed && Object.keys(after).length === 0) {
    rmSync(file, { force: true }); // nothing but fire's hook was there: leave no `{}` behind
  } else if (changed) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileAtomic.sync(file, `${JSON.stringify(after, null, 2)}\n`);
  }
  return { file, changed, settings: after };
}
