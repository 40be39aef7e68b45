import { resolve } from "node:path";
import type { Command } from "commander";
import { type InstallReport, installHook, uninstallHook } from "../../core/deploy/install.js";
import type { Harness } from "../../core/deploy/settings.js";
import { UsageError } from "../../core/errors.js";

interface InstallOpts {
  harness?: string;
  portfolio?: string;
  project?: string;
  user?: boolean;
}

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
      const r = installHook({
        harness: harnessOf(opts.harness),
        ...scopeOf(opts),
        ...(opts.portfolio ? { portfolio: opts.portfolio } : {}),
        ...(opts.user ? {} : { workspace: resolve(opts.project ?? process.cwd()) }),
      });
      process.stdout.write(
        `${r.changed ? "installed" : "already installed"}: fire hook for ${r.harness} in ${r.file}\n`,
      );
      printNotes(r);
    });
  scoped(hook.command("uninstall").description("remove fire's hook; other hooks stay")).action(
    (opts: InstallOpts) => {
      const r = uninstallHook({ harness: harnessOf(opts.harness), ...scopeOf(opts) });
      process.stdout.write(`${r.changed ? "removed" : "not installed"}: fire hook in ${r.file}\n`);
    },
  );
}

function scopeOf(opts: InstallOpts): { project?: string; user?: boolean } {
  return opts.user ? { user: true } : opts.project ? { project: opts.project } : {};
}

function printNotes(r: InstallReport): void {
  for (const note of r.notes) (note.warn ? process.stderr : process.stdout).write(`${note.text}\n`);
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
