import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { UsageError } from "../../core/errors.js";
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
      if (!opts.portfolio)
        process.stderr.write(
          "fire: no --portfolio given: the hook uses the workspace's newest frozen portfolio (portfolios/*/manifest.json) and answers nothing until there is one\n",
        );
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
