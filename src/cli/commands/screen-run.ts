import { dirname } from "node:path";
import type { Command } from "commander";
import { installHook, uninstallHook } from "../../core/deploy/install.js";
import type { Harness } from "../../core/deploy/settings.js";
import { UsageError } from "../../core/errors.js";
import { DEFAULT_HARBOR_TEMPLATE, runHarborScreen } from "../../core/screen/run/harbor.js";
import type { HookInstaller } from "../../core/screen/run/hook.js";
import { runLocalScreen } from "../../core/screen/run/local.js";
import { parseVars } from "../../core/screen/run/template.js";
import type { RunProgress, RunSummary } from "../../core/screen/run/types.js";
import { loadWorkspace } from "../../core/workspace/load.js";
import { withWorkspace, workspaceDir } from "../util/workspace.js";

interface RunOpts {
  workspace?: string;
  runner: string;
  command?: string;
  copyFrom?: string;
  concurrency: string;
  timeout?: string;
  var: string[];
  harborBin?: string;
  harness: string;
}

/**
 * Installs an arm's hook into the fresh working copy the way `fire hook install` does
 * (project settings of Claude Code or Codex); baseline gets none (a copied one is removed).
 */
function settingsInstaller(harness: Harness): HookInstaller {
  return async (hook, ctx) => {
    if (!ctx.workdir) return;
    const project = ctx.workdir;
    if (!hook.portfolio) uninstallHook({ harness, project });
    else
      installHook({
        harness,
        project,
        portfolio: hook.portfolio,
        log: hook.logFile,
        workspace: dirname(project), // the trial folder: hook state stays out of the copy
      });
  };
}

const positive = (s: string, flag: string): number => {
  if (!/^[1-9]\d*$/.test(s)) throw new UsageError(`${flag} must be a positive whole number`);
  return Number(s);
};

/** A progress bar on a terminal; one line per event otherwise (logs, CI). */
function progressLine(p: RunProgress): void {
  const what = p.event === "skip" ? "already done" : p.event;
  const text = `${p.unit ?? ""} ${what}${p.message ? `: ${p.message}` : ""}`;
  if (process.stderr.isTTY) {
    const width = 24;
    const full = p.total ? Math.round((p.done / p.total) * width) : 0;
    const bar = `${"█".repeat(full)}${"░".repeat(width - full)}`;
    process.stderr.write(`\r\x1b[K[${bar}] ${p.done}/${p.total} ${text.slice(0, 60)}`);
    if (p.done === p.total && p.event !== "start") process.stderr.write("\n");
    return;
  }
  process.stderr.write(`[${p.done}/${p.total}] ${text}\n`);
}

/** `fire screen run NAME --runner local|harbor`: runs a planned screen, resumably. */
export function registerScreenRun(screen: Command): void {
  withWorkspace(
    screen
      .command("run")
      .description("run a planned screen (resumable; Ctrl-C keeps every finished attempt)")
      .argument("<name>", "screen name (screens/<name>/)")
      .option("--runner <runner>", "local or harbor", "local")
      .option(
        "--command <template>",
        `command template; local: per (task, arm, attempt), exit 0 = pass; harbor default: ${DEFAULT_HARBOR_TEMPLATE}`,
      )
      .option("--copy-from <dir>", "local: folder copied into each attempt's fresh working copy")
      .option("--concurrency <n>", "attempts (local) or Harbor trials at once", "2")
      .option("--timeout <seconds>", "per attempt (local) or per Harbor job")
      .option(
        "--var <key=value>",
        "template variable (repeatable), e.g. --var dataset=terminal-bench@2.0",
        (v: string, prev: string[]) => [...prev, v],
        [] as string[],
      )
      .option("--harbor-bin <path>", "the Harbor executable", "harbor")
      .option(
        "--harness <harness>",
        "the agent whose hook settings each arm gets: claude or codex (local: the working copy's settings; harbor: the payload mounted into the container)",
        "claude",
      ),
  ).action(async (name: string, opts: RunOpts) => {
    const workspace = workspaceDir(opts);
    const controller = new AbortController();
    const onSigint = (): void => {
      process.stderr.write(
        "fire: stopping after the running attempts end; finished ones are kept\n",
      );
      controller.abort();
    };
    process.once("SIGINT", onSigint);
    const common = {
      workspace,
      name,
      fireBin: [process.execPath, process.argv[1] ?? "fire"],
      vars: parseVars(opts.var),
      concurrency: positive(opts.concurrency, "--concurrency"),
      ...(opts.timeout ? { timeoutMs: positive(opts.timeout, "--timeout") * 1000 } : {}),
      onProgress: progressLine,
      signal: controller.signal,
    };
    let summary: RunSummary;
    try {
      if (opts.runner === "local") {
        if (!opts.command) throw new UsageError("the local runner needs --command TEMPLATE");
        if (opts.harness !== "claude" && opts.harness !== "codex") {
          throw new UsageError(`--harness must be claude or codex, not ${opts.harness}`);
        }
        summary = await runLocalScreen({
          ...common,
          template: opts.command,
          installHook: settingsInstaller(opts.harness),
          ...(opts.copyFrom ? { copyFrom: opts.copyFrom } : {}),
        });
      } else if (opts.runner === "harbor") {
        if (opts.harness !== "claude" && opts.harness !== "codex") {
          throw new UsageError(`--harness must be claude or codex, not ${opts.harness}`);
        }
        summary = await runHarborScreen({
          ...common,
          harness: opts.harness,
          ...(opts.command ? { template: opts.command } : {}),
          ...(opts.harborBin ? { harborBin: opts.harborBin } : {}),
          rebuildHook: async () =>
            (await import("../../build/bundle-standalone.js")).bundleStandaloneHook(),
          loadAttempts: async (dir) => {
            const ws = await loadWorkspace(workspace, { sources: [dir] });
            return { attempts: ws.attempts, errors: ws.errors };
          },
        });
      } else {
        throw new UsageError(`--runner must be local or harbor, not ${opts.runner}`);
      }
    } finally {
      process.removeListener("SIGINT", onSigint);
    }
    if (process.stderr.isTTY) process.stderr.write("\r\x1b[K"); // clear an unfinished bar
    for (const e of summary.errors) process.stderr.write(`fire: ${e}\n`);
    process.stdout.write(
      `screen ${name}: ${summary.done}/${summary.total} done (${summary.skipped} from an earlier run), ${summary.failed} failed${summary.aborted ? "; stopped early: run again to resume" : ""}\n`,
    );
    if (summary.failed || summary.aborted) process.exitCode = 1;
  });
}
