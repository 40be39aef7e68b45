import type { Command } from "commander";
import {
  diagnoseHook,
  type Harness,
  harnessNamed,
  type InstallReport,
  installHook,
  uninstallHook,
} from "../../core/app/hook.js";
import { UsageError } from "../../core/errors.js";
import { withWorkspace, workspaceDir } from "../util/workspace.js";

interface InstallOpts {
  harness?: string;
  portfolio?: string;
  project?: string;
  user?: boolean;
  workspace?: string;
  projectTrust?: boolean;
}

/**
 * `fire hook install|uninstall|doctor`. The hook itself (`fire hook [flags]` with an event on
 * stdin) never reaches commander: cli/main.ts dispatches it to src/runtime first.
 */
export function registerHook(program: Command): void {
  const hook = program
    .command("hook")
    .description(
      "the live hook: `fire hook [--portfolio FILE|DIR] [--state-dir DIR] [--log FILE] [--fail-closed] [--workspace DIR]` reads one harness event on stdin; install/uninstall/doctor manage it",
    );
  withWorkspace(
    scoped(
      hook
        .command("install")
        .description(
          "add fire's hook to Claude Code or Codex settings (Codex: with the hook trust it needs)",
        ),
    ),
  )
    .option(
      "--portfolio <path>",
      "candidate file or directory the hook evaluates (default: the workspace's newest frozen portfolio, followed at every event)",
    )
    .option("--no-project-trust", "codex --project: do not mark the project trusted")
    .action((opts: InstallOpts) => {
      const r = installHook({
        harness: harnessOf(opts.harness),
        ...scopeOf(opts),
        workspace: workspaceDir(opts),
        ...(opts.portfolio ? { portfolio: opts.portfolio } : {}),
        ...(opts.projectTrust === false ? { noProjectTrust: true } : {}),
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
      printNotes(r);
    },
  );
  scoped(
    hook
      .command("doctor")
      .description("say whether the installed hook will run in the client, and why not"),
  ).action((opts: InstallOpts) => {
    const r = diagnoseHook({ harness: harnessOf(opts.harness), ...scopeOf(opts) });
    for (const f of r.findings)
      (f.level === "ok" ? process.stdout : process.stderr).write(
        `${f.level === "ok" ? "ok" : "PROBLEM"}: ${f.text}\n`,
      );
    process.stdout.write(
      r.ok
        ? `the fire hook for ${r.harness} will run\n`
        : `the fire hook for ${r.harness} will not act as installed\n`,
    );
    if (!r.ok) process.exitCode = 1;
  });
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
    .option(
      "--project <dir>",
      "the project's settings: .claude/settings.local.json or .codex/hooks.json (default: the current directory)",
    )
    .option(
      "--user",
      "the user's settings: $CLAUDE_CONFIG_DIR/settings.json (else ~/.claude) or $CODEX_HOME/hooks.json (else ~/.codex)",
    );
}

function harnessOf(name: string | undefined): Harness {
  const h = harnessNamed(name);
  if (h) return h;
  throw new UsageError(`--harness must be claude or codex, not '${name}'`);
}
