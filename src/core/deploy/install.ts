import { existsSync, readFileSync, realpathSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { NotFoundError } from "../errors.js";
import { defaultPortfolioDir } from "../freeze/default.js";
import { isPortfolioDir, loadPolicySource } from "../freeze/policy-source.js";
import { workspacePaths } from "../workspace/paths.js";
import { trustEntries, writeCodexTrust } from "./codex-trust.js";
import { withEditLock } from "./edit-lock.js";
import {
  editSettings,
  fireCommands,
  type Harness,
  hookCommand,
  type InstallResult,
  isFireCommand,
  readSettings,
  settingsPath,
  userConfigDir,
  withFire,
  withFireMode,
  withoutFire,
} from "./settings.js";
import { portfolioTools, toolMatcher } from "./tool-filter.js";

/**
 * The `install hook` use-case, composed once for the CLI (`fire hook install|uninstall`),
 * the workbench's portfolio screen and the local screen runner: where the harness reads its
 * hooks, the command fire installs there, the trust step Codex needs, and what the hook
 * will evaluate.
 */

/**
 * The `fire` bin the installed hook runs (dist/cli/fire.cjs beside dist/core/): it runs a hook
 * call as one CommonJS script with V8's code cache (see src/cli/fire.cts). Run from its
 * sources (the test suite) there is no src/cli/fire.cjs: the hook calls the build beside.
 */
export const FIRE_CLI = resolve(
  fileURLToPath(import.meta.url),
  import.meta.url.endsWith(".ts") ? "../../../../dist/cli/fire.cjs" : "../../../cli/fire.cjs",
);

export interface HookTarget {
  harness: Harness;
  /** The project whose settings change (default: the current directory) … */
  project?: string;
  /** … or the user's settings. */
  user?: boolean;
  env?: NodeJS.ProcessEnv;
}

export interface InstallHookRequest extends HookTarget {
  /** Candidate file or folder; without one the workspace's newest frozen portfolio. */
  portfolio?: string;
  /**
   * The fire workspace: where the hook keeps state and its log, and (without a portfolio)
   * whose newest frozen portfolio it follows. One folder for every project the agent opens.
   */
  workspace: string;
  /** Where the hook logs its decisions (default: inside the workspace). */
  log?: string;
  /** Codex --project: leave the project's trust to the user (default: mark it trusted). */
  noProjectTrust?: boolean;
  /**
   * A fault denies instead of allowing: `fire hook --fail-closed`, and in Claude Code
   * `onFailure: "block"`, so a hook that cannot even start (node or fire missing) blocks too.
   */
  failClosed?: boolean;
  /** Observe mode: the hook evaluates and logs what it would have done, and allows. */
  observe?: boolean;
}

export interface InstallNote {
  text: string;
  warn: boolean;
}

export interface InstallReport extends InstallResult {
  harness: Harness;
  notes: InstallNote[];
}

function projectDir(req: HookTarget): string {
  const dir = resolve(req.project ?? process.cwd());
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

/** Codex's user config.toml, where persisted hook trust lives. */
export function codexConfigToml(env: NodeJS.ProcessEnv = process.env): string {
  return join(userConfigDir("codex", env), "config.toml");
}

/** Adds (or replaces) fire's hook for one harness and scope. */
export function installHook(req: InstallHookRequest): InstallReport {
  const env = req.env ?? process.env;
  const workspace = resolve(req.workspace);
  if (!req.portfolio && !defaultPortfolioDir(workspace))
    throw new NotFoundError(
      `nothing frozen yet under ${workspacePaths(workspace).portfolios}/: an installed hook would stay silent. Freeze one first (\`fire freeze\` in ${workspace}), or name a frozen portfolio`,
      "portfolio",
    );
  const scope = req.user ? { user: true } : { project: projectDir(req) };
  const file = settingsPath(req.harness, scope, env);
  return withEditLock(lockFile(req.harness, file, env), () =>
    installLocked(req, env, scope, file, workspace),
  );
}

function installLocked(
  req: InstallHookRequest,
  env: NodeJS.ProcessEnv,
  scope: { user?: boolean; project?: string },
  file: string,
  workspace: string,
): InstallReport {
  const command = hookCommand({
    cliPath: FIRE_CLI,
    portfolio: req.portfolio,
    workspace,
    log: req.log,
    failClosed: req.failClosed,
    observe: req.observe,
  });
  const notes: InstallNote[] = [];
  if (req.harness === "claude" && !req.user) notes.push(...dropSharedClaudeEntry(scope.project));
  const filter = toolFilter(req);
  const r = editSettings(file, (s) =>
    withFire(s, command, req.harness, {
      blockOnFailure: req.failClosed,
      ...(filter ? { matchers: filter.matchers } : {}),
    }),
  );
  if (filter) notes.push(filter.note);
  if (req.failClosed) notes.push(failClosedNote(req.harness));
  if (req.harness === "codex") notes.push(...trustCodexHooks(file, r, env, req, scope.project));
  notes.push(req.portfolio ? portfolioNote(req.portfolio) : defaultPortfolioNote(workspace));
  if (req.observe) notes.push(OBSERVE_NOTE);
  return { ...r, harness: req.harness, notes };
}

/**
 * The tool matchers of an install that names a frozen portfolio: its policies cannot change
 * under the hook (their hashes are checked at every event), so the tools they can act on are
 * known, and the client need not start the hook for the others (core/deploy/tool-filter.ts).
 * A hook that follows the workspace's newest portfolio, or candidate files that may be edited,
 * keeps every tool.
 */
function toolFilter(
  req: InstallHookRequest,
): { matchers: Record<string, string | null>; note: InstallNote } | undefined {
  if (!req.portfolio || !isPortfolioDir(req.portfolio)) return undefined;
  const { policies, errors } = loadPolicySource(req.portfolio);
  if (errors.length > 0 || policies.length === 0) return undefined;
  const need = portfolioTools(policies.map((p) => p.candidate));
  const pre = toolMatcher(need.tool, req.harness) ?? null;
  const post = toolMatcher(need.tool_result, req.harness) ?? null;
  if (pre === "" && post === "") return undefined;
  const say = (m: string | null) => (m === null ? "none" : m === "" ? "every tool" : m);
  return {
    matchers: { PreToolUse: pre, PostToolUse: post, PostToolUseFailure: post },
    note: {
      text: `tool events reach the hook only for the tools the portfolio can act on: before a call ${say(pre)}; after it ${say(post)}`,
      warn: false,
    },
  };
}

const OBSERVE_NOTE: InstallNote = {
  text: "observe mode: the hook logs what it would have done and allows everything; `fire hook enforce` (same --harness and scope) makes it act",
  warn: false,
};

/**
 * `fire hook enforce|observe`: switches the installed fire hook of one harness and scope to
 * enforce or observe mode, every other word of its command kept (Codex: its trust renewed,
 * since trust is a hash of the command).
 */
export function setHookMode(req: HookTarget & { observe: boolean }): InstallReport {
  const env = req.env ?? process.env;
  const scope = req.user ? { user: true } : { project: projectDir(req) };
  const file = settingsPath(req.harness, scope, env);
  return withEditLock(lockFile(req.harness, file, env), () => setModeLocked(req, env, file));
}

function setModeLocked(
  req: HookTarget & { observe: boolean },
  env: NodeJS.ProcessEnv,
  file: string,
): InstallReport {
  if (fireCommands(readSettings(file)).length === 0)
    throw new NotFoundError(`no fire hook installed in ${file}: install it first`);
  const r = editSettings(file, (s) => withFireMode(s, req.observe));
  const notes: InstallNote[] = [];
  if (req.harness === "codex" && r.changed) {
    const entries = trustEntries(file, r.settings, isFireCommand);
    const t = writeCodexTrust(codexConfigToml(env), file, entries, undefined);
    notes.push({
      text: `renewed the trust of fire's ${entries.length} hook entries in ${t.file}`,
      warn: false,
    });
  }
  notes.push(
    req.observe
      ? OBSERVE_NOTE
      : { text: "enforce mode: the hook acts on its rules' decisions", warn: false },
  );
  return { ...r, harness: req.harness, notes };
}

/** Removes fire's hook for one harness and scope; every other hook stays. */
export function uninstallHook(req: HookTarget): InstallReport {
  const env = req.env ?? process.env;
  const scope = req.user ? { user: true } : { project: projectDir(req) };
  const file = settingsPath(req.harness, scope, env);
  return withEditLock(
    lockFile(req.harness, file, env),
    () => uninstallLocked(req, env, scope, file),
    false,
  );
}

/**
 * The file whose lock serialises an edit: Codex's user config.toml (one for every project:
 * the trust it holds must match each hooks.json written with it), else the settings file.
 */
function lockFile(harness: Harness, settings: string, env: NodeJS.ProcessEnv): string {
  return harness === "codex" ? codexConfigToml(env) : settings;
}

function uninstallLocked(
  req: HookTarget,
  env: NodeJS.ProcessEnv,
  scope: { user?: boolean; project?: string },
  file: string,
): InstallReport {
  const r = editSettings(file, withoutFire);
  const notes: InstallNote[] = [];
  if (req.harness === "claude" && !req.user) notes.push(...dropSharedClaudeEntry(scope.project));
  if (req.harness === "codex") {
    const t = writeCodexTrust(
      codexConfigToml(env),
      file,
      [],
      scope.project ? { dir: scope.project, trust: false } : undefined,
    );
    if (t.changed) notes.push({ text: `removed fire's hook trust from ${t.file}`, warn: false });
  }
  return { ...r, harness: req.harness, notes };
}

/** An older fire wrote the project hook into the team-shared settings.json: move it out. */
function dropSharedClaudeEntry(project: string | undefined): InstallNote[] {
  const shared = join(project ?? process.cwd(), ".claude", "settings.json");
  if (!existsSync(shared)) return [];
  const hasFire = Object.values(readSettings(shared).hooks ?? {}).some((groups) =>
    groups.some((g) => g.hooks.some((h) => isFireCommand(h.command))),
  );
  if (!hasFire) return [];
  editSettings(shared, withoutFire);
  return [
    {
      text: `removed fire's hook from the team-shared ${shared} (it now lives in settings.local.json)`,
      warn: false,
    },
  ];
}

/**
 * Codex runs user- and project-layer hooks only with persisted trust: fire records the trust
 * hash of each of its entries in `$CODEX_HOME/config.toml` (and, for a project, marks the
 * project trusted, since Codex loads an untrusted project's `.codex/` disabled).
 */
function trustCodexHooks(
  file: string,
  r: InstallResult,
  env: NodeJS.ProcessEnv,
  req: InstallHookRequest,
  project: string | undefined,
): InstallNote[] {
  const entries = trustEntries(file, r.settings, isFireCommand);
  const t = writeCodexTrust(
    codexConfigToml(env),
    file,
    entries,
    project ? { dir: project, trust: !req.noProjectTrust } : undefined,
  );
  const notes: InstallNote[] = [
    {
      text: `trusted fire's ${entries.length} hook entries in ${t.file} (Codex runs user and project hooks only with persisted trust; \`fire hook uninstall\` removes it)`,
      warn: false,
    },
  ];
  if (project && t.trustedProjects.length)
    notes.push({
      text: `marked ${project} trusted in ${t.file} (Codex loads an untrusted project's .codex/ disabled)`,
      warn: false,
    });
  if (project && req.noProjectTrust)
    notes.push({
      text: `fire: Codex runs ${file} only once ${project} is a trusted project (\`[projects."${project}"] trust_level = "trusted"\` in ${t.file})`,
      warn: true,
    });
  return notes;
}

function failClosedNote(harness: Harness): InstallNote {
  return harness === "claude"
    ? {
        text: `fail-closed: a fault in fire denies the tool call, and Claude Code blocks the tool call when the hook cannot start, crashes or times out (onFailure: "block")`,
        warn: false,
      }
    : {
        text: `fire: fail-closed covers faults inside fire only: Codex 0.171 has no onFailure, so a hook that cannot start (node or fire missing) lets the action run; \`fire hook doctor\` checks both are there`,
        warn: true,
      };
}

function portfolioNote(portfolio: string): InstallNote {
  return { text: `portfolio: ${resolve(portfolio)}`, warn: false };
}

/**
 * What an install without a portfolio will evaluate: the hook takes the workspace's newest
 * frozen portfolio (`portfolios/<name>/manifest.json`, latest `frozenAt`) on every event, so
 * a later freeze is picked up without reinstalling.
 */
export function defaultPortfolioNote(workspace: string): InstallNote {
  const dir = defaultPortfolioDir(workspace);
  if (!dir)
    return {
      text: `fire: nothing frozen yet under ${workspacePaths(workspace).portfolios}/: the hook stays silent (and logs "no portfolio") until \`fire freeze\` writes one there`,
      warn: true,
    };
  let at = "";
  try {
    at = String(JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")).frozenAt ?? "");
  } catch {
    // defaultPortfolioDir just read it; a race only loses the date
  }
  return {
    text: `portfolio: ${relative(workspace, dir)} in ${workspace} (newest frozen${at ? `, ${at}` : ""}); the hook follows the newest frozen portfolio at every event`,
    warn: false,
  };
}
