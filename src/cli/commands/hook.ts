import { readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { UsageError } from "../../core/errors.js";
import { defaultPortfolioDir } from "../../core/freeze/default.js";
import {
  editSettings,
  type Harness,
  hookCommand,
  settingsPath,
  withFire,
  withoutFire,
} from "../../runtime/install.js";

interface InstallOpts {
  harness?: string;
  portfolio?: string;
  project?: string;
  user?: boolean;
}

/** The built CLI entry the installed hook runs (dist/cli/main.js). */
const CLI_PATH = resolve(fileURLToPath(import.meta.url), "../../main.js");

/**
 * `fire hook install|uninstall`. The hook itself (`fire hook [flags]` with an event on
 * stdin) never reaches commander: cli/main.ts dispatches it to src/runtime first.
 */
export function registerHook(program: Command): void {
  const hook = program
    .command("hook")
    .description(
      "the live hook: `fire hook [--portfolio FILE|DIR] [--state-dir DIR] [--log FILE] [--fail-closed] [--workspace DIR]` reads one harness event on stdin; install/uninstall manage it",
    );
  scoped(hook.command("install").description("add fire's hook to Claude Code or Codex settings"))
    .option("--portfolio <path>", "candidate file or directory the hook evaluates")
    .action((opts: InstallOpts) => {
      const harness = harnessOf(opts.harness);
      const file = settingsPath(harness, opts);
      const command = hookCommand({
        cliPath: CLI_PATH,
        portfolio: opts.portfolio,
        workspace: opts.user ? undefined : resolve(opts.project ?? process.cwd()),
      });
      const r = editSettings(file, (s) => withFire(s, command));
      process.stdout.write(
        `${r.changed ? "installed" : "already installed"}: fire hook for ${harness} in ${r.file}\n`,
      );
      if (!opts.portfolio) {
        const note = defaultPortfolioNote(
          opts.user ? undefined : resolve(opts.project ?? process.cwd()),
        );
        (note.warn ? process.stderr : process.stdout).write(`${note.text}\n`);
      }
    });
  scoped(hook.command("uninstall").description("remove fire's hook; other hooks stay")).action(
    (opts: InstallOpts) => {
      const harness = harnessOf(opts.harness);
      const r = editSettings(settingsPath(harness, opts), withoutFire);
      process.stdout.write(`${r.changed ? "removed" : "not installed"}: fire hook in ${r.file}\n`);
    },
  );
}

function scoped(cmd: Command): Command {
  return cmd
    .requiredOption("--harness <name>", "claude or codex")
    .option("--project <dir>", "the project's settings (default: the current directory)")
    .option("--user", "the user's settings (~/.claude/settings.json or ~/.codex/hooks.json)");
}

function harnessOf(name: string | undefined): Harness {
  if (name === "claude" || name === "codex") return name;
  throw new UsageError(`--harness must be claude or codex, not '${name}'`);
}

/**
 * What an install without --portfolio will evaluate: the hook takes the workspace's newest
 * frozen portfolio (`portfolios/<name>/manifest.json`, latest `frozenAt`) on every event, so
 * a later freeze is picked up without reinstalling. A warning only when nothing is frozen.
 */
export function defaultPortfolioNote(workspace: string | undefined): {
  text: string;
  warn: boolean;
} {
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
