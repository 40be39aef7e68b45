import type { Command } from "commander";
import {
  defaultPluginDir,
  diagnoseHook,
  fieldReport,
  type Harness,
  harnessNamed,
  hookReportJson,
  type InstallReport,
  installHook,
  installHookPlugin,
  type PluginReport,
  renderHookReportCsv,
  renderHookReportText,
  setHookMode,
  uninstallHook,
  uninstallHookPlugin,
} from "../../core/app/hook.js";
import { UsageError } from "../../core/errors.js";
import { withFlag } from "../util/flags.js";
import { print, printErr, printResult } from "../util/out.js";
import { withWorkspace, workspaceDir } from "../util/workspace.js";

interface InstallOpts {
  harness?: string;
  portfolio?: string;
  project?: string;
  user?: boolean;
  workspace?: string;
  projectTrust?: boolean;
  failClosed?: boolean;
  json?: boolean;
  observe?: boolean;
  plugin?: string | boolean;
}

/**
 * `fire hook install|uninstall|doctor`. The hook itself (`fire hook [flags]` with an event on
 * stdin) never reaches commander: cli/main.ts dispatches it to src/runtime first.
 */
export function register(program: Command): void {
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
    .option(
      "--fail-closed",
      "a fault denies the tool call; Claude Code also blocks when the hook cannot start, crashes or times out (onFailure: block)",
    )
    .option(
      "--observe",
      "observe mode: the hook evaluates and logs what it would have done, and allows everything (`fire hook enforce` switches)",
    )
    .option(
      "--plugin [dir]",
      "install it as a plugin of the client instead (a local marketplace written to DIR, default <workspace>/.fire/plugins/<harness>; installed with the client's own plugin commands; needs --portfolio)",
    )
    .action(async (opts: InstallOpts) => {
      if (opts.plugin !== undefined) {
        if (!opts.portfolio)
          throw new UsageError("--plugin needs --portfolio: the plugin carries its portfolio");
        const harness = harnessOf(opts.harness);
        const r = await installHookPlugin({
          harness,
          ...scopeOf(opts),
          dir: pluginDir(opts, harness),
          portfolio: opts.portfolio,
          ...(opts.failClosed ? { failClosed: true } : {}),
          ...(opts.observe ? { observe: true } : {}),
        });
        printPluginReport(opts, r, `installed: fire hook plugin for ${r.harness} from ${r.file}`);
        return;
      }
      const r = installHook({
        harness: harnessOf(opts.harness),
        ...scopeOf(opts),
        workspace: workspaceDir(opts),
        ...(opts.portfolio ? { portfolio: opts.portfolio } : {}),
        ...(opts.projectTrust === false ? { noProjectTrust: true } : {}),
        ...(opts.failClosed ? { failClosed: true } : {}),
        ...(opts.observe ? { observe: true } : {}),
      });
      printReport(
        opts,
        r,
        `${r.changed ? "installed" : "already installed"}: fire hook for ${r.harness} in ${r.file}${opts.observe ? " (observe mode)" : ""}\n`,
      );
    });
  for (const [name, observe] of [
    ["enforce", false],
    ["observe", true],
  ] as const)
    scoped(
      hook
        .command(name)
        .description(
          observe
            ? "switch the installed hook to observe mode: it logs what it would have done and allows"
            : "switch the installed hook to enforce mode: it acts on its rules' decisions",
        ),
    ).action((opts: InstallOpts) => {
      const r = setHookMode({ harness: harnessOf(opts.harness), ...scopeOf(opts), observe });
      printReport(
        opts,
        r,
        `${r.changed ? "switched" : "already"} to ${name} mode: fire hook in ${r.file}\n`,
      );
    });
  withWorkspace(
    hook
      .command("report [paths...]")
      .description(
        "per rule and portfolio version, what the live hook did: from hook logs (files, or folders searched for *hook-log*.jsonl: projects, Harbor trial folders); default the workspace's .fire/",
      ),
  )
    .option(
      "--portfolio <path>",
      "the portfolio the logs come from: its rules that never fired are listed too (default: the newest frozen)",
    )
    .option("--json", "print the report as JSON")
    .option("--csv", "print one CSV row per rule and policy version")
    .action(
      (
        paths: string[],
        opts: { workspace?: string; portfolio?: string; json?: boolean; csv?: boolean },
      ) => {
        if (opts.json && opts.csv) throw new UsageError("--json and --csv: choose one");
        const r = fieldReport({
          workspace: workspaceDir(opts),
          paths,
          ...(opts.portfolio ? { portfolio: opts.portfolio } : {}),
        });
        if (opts.csv) {
          // rule ids and paths come from hook logs: printable like every other report
          print(renderHookReportCsv(r));
          for (const e of r.errors) printErr(`${e.format()}\n`);
          return;
        }
        printResult(opts.json, hookReportJson(r), () => renderHookReportText(r));
      },
    );
  withWorkspace(
    scoped(hook.command("uninstall").description("remove fire's hook; other hooks stay")),
  )
    .option(
      "--plugin [dir]",
      "remove fire's hook plugin instead: the client's uninstall, fire's Codex trust entries, and the plugin folder (default <workspace>/.fire/plugins/<harness>)",
    )
    .action((opts: InstallOpts) => {
      if (opts.plugin !== undefined) {
        const harness = harnessOf(opts.harness);
        const r = uninstallHookPlugin({ harness, ...scopeOf(opts), dir: pluginDir(opts, harness) });
        printPluginReport(
          opts,
          r,
          `${r.changed ? "removed" : "not installed"}: fire hook plugin for ${r.harness}`,
        );
        return;
      }
      const r = uninstallHook({ harness: harnessOf(opts.harness), ...scopeOf(opts) });
      printReport(opts, r, `${r.changed ? "removed" : "not installed"}: fire hook in ${r.file}\n`);
    });
  scoped(
    hook
      .command("doctor")
      .description("say whether the installed hook will run in the client, and why not"),
  )
    .option(
      "--plugin",
      "diagnose fire's hook plugin (install --plugin): recorded and enabled by the client, its hook and pinned portfolio intact, Codex's trust (default: whichever is installed)",
    )
    .action((opts: InstallOpts) => {
      const r = diagnoseHook({
        harness: harnessOf(opts.harness),
        ...scopeOf(opts),
        ...(opts.plugin ? { plugin: true } : {}),
      });
      if (!r.ok) process.exitCode = 1;
      if (!opts.json)
        for (const f of r.findings)
          if (f.level === "problem") printErr(`PROBLEM: ${withFlag(f.text, f.field)}\n`);
      printResult(
        opts.json,
        r,
        () =>
          r.findings
            .filter((f) => f.level !== "problem")
            .map((f) => `${f.level}: ${withFlag(f.text, f.field)}\n`)
            .join("") +
          (r.ok
            ? `the fire hook for ${r.harness} will run\n`
            : `the fire hook for ${r.harness} will not act as installed\n`),
      );
    });
}

function scopeOf(opts: InstallOpts): { project?: string; user?: boolean } {
  return opts.user ? { user: true } : opts.project ? { project: opts.project } : {};
}

/**
 * What install / uninstall did. `--json` prints `{harness, file, changed, notes}` (the
 * settings themselves are not printed: they may hold the user's environment and keys).
 */
function printReport(opts: InstallOpts, r: InstallReport, text: string): void {
  printResult(
    opts.json,
    { harness: r.harness, file: r.file, changed: r.changed, notes: r.notes },
    () => `${text}${r.notes.flatMap((n) => (n.warn ? [] : [`${n.text}\n`])).join("")}`,
  );
  if (!opts.json) for (const n of r.notes) if (n.warn) printErr(`${n.text}\n`);
}

function pluginDir(opts: InstallOpts, harness: Harness): string {
  return typeof opts.plugin === "string"
    ? opts.plugin
    : defaultPluginDir(workspaceDir(opts), harness);
}

/** What a plugin install / uninstall did, and the client commands it ran. */
function printPluginReport(opts: InstallOpts, r: PluginReport, head: string): void {
  printResult(
    opts.json,
    r,
    () =>
      `${head}\n${r.commands.map((c) => `ran: ${c}\n`).join("")}${r.notes.flatMap((n) => (n.warn ? [] : [`${n.text}\n`])).join("")}`,
  );
  if (!opts.json) for (const n of r.notes) if (n.warn) printErr(`${n.text}\n`);
}

function scoped(cmd: Command): Command {
  return cmd
    .requiredOption("--harness <name>", "claude or codex")
    .option(
      "--json",
      "print the result as JSON (install/uninstall: {harness, file, changed, notes})",
    )
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
