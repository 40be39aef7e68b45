import { readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { defaultPortfolioDir } from "../freeze/default.js";
import {
  editSettings,
  type Harness,
  hookCommand,
  type InstallResult,
  settingsPath,
  withFire,
  withoutFire,
} from "./settings.js";

/**
 * The `install hook` use-case, composed once for the CLI (`fire hook install|uninstall`),
 * the workbench's portfolio screen and the local screen runner: where the harness reads its
 * hooks, the command fire installs there, and what the hook will evaluate.
 */

/** The built CLI entry the installed hook runs (dist/cli/main.js beside dist/core/). */
export const FIRE_CLI = resolve(fileURLToPath(import.meta.url), "../../../cli/main.js");

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
  /** The fire workspace the hook keeps state and logs in (and takes its default portfolio from). */
  workspace?: string;
  /** Where the hook logs its decisions (default: inside the workspace). */
  log?: string;
}

export interface InstallNote {
  text: string;
  warn: boolean;
}

export interface InstallReport extends InstallResult {
  harness: Harness;
  notes: InstallNote[];
}

/** Adds (or replaces) fire's hook for one harness and scope. */
export function installHook(req: InstallHookRequest): InstallReport {
  const file = settingsPath(req.harness, req, req.env);
  const command = hookCommand({
    cliPath: FIRE_CLI,
    portfolio: req.portfolio,
    workspace: req.workspace,
    log: req.log,
  });
  const r = editSettings(file, (s) => withFire(s, command));
  const notes = req.portfolio ? [] : [defaultPortfolioNote(req.workspace)];
  return { ...r, harness: req.harness, notes };
}

/** Removes fire's hook for one harness and scope; every other hook stays. */
export function uninstallHook(req: HookTarget): InstallReport {
  const r = editSettings(settingsPath(req.harness, req, req.env), withoutFire);
  return { ...r, harness: req.harness, notes: [] };
}

/**
 * What an install without a portfolio will evaluate: the hook takes the workspace's newest
 * frozen portfolio (`portfolios/<name>/manifest.json`, latest `frozenAt`) on every event, so
 * a later freeze is picked up without reinstalling. A warning only when nothing is frozen.
 */
export function defaultPortfolioNote(workspace: string | undefined): InstallNote {
  if (!workspace)
    return {
      text: "portfolio: the newest frozen portfolio under portfolios/ of the directory the client runs the hook in (none there: the hook stays silent and logs why)",
      warn: false,
    };
  const dir = defaultPortfolioDir(workspace);
  if (!dir)
    return {
      text: `fire: nothing frozen yet under ${join(workspace, "portfolios")}/: the hook stays silent (and logs "no portfolio") until \`fire freeze\` writes one there, or reinstall with --portfolio FILE|DIR`,
      warn: true,
    };
  let at = "";
  try {
    at = String(JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")).frozenAt ?? "");
  } catch {
    // defaultPortfolioDir just read it; a race only loses the date
  }
  return {
    text: `portfolio: ${relative(workspace, dir)} (newest frozen${at ? `, ${at}` : ""}); the hook follows the newest frozen portfolio at every event`,
    warn: false,
  };
}
