import type { Command } from "commander";
import { type Harness, harnessNamed } from "../../core/app/hook.js";
import {
  DEFAULT_HARBOR_TEMPLATE,
  parseVars,
  runScreen,
  runSummaryLine,
  type SmokeReport,
  smokeScreen,
} from "../../core/app/run.js";
import { UsageError } from "../../core/errors.js";
import type { RunProgress, RunSummary } from "../../core/screening/run/types.js";
import { printErr, printResult } from "../util/out.js";
import { withWorkspace, workspaceDir } from "../util/workspace.js";

interface RunOpts {
  workspace?: string;
  runner?: string;
  env?: string;
  delivery?: string;
  adapter?: string;
  smoke?: boolean;
  command?: string;
  copyFrom?: string;
  concurrency: string;
  timeout?: string;
  var: string[];
  harborBin?: string;
  harness: string;
  json?: boolean;
}

function harnessOf(name: string): Harness {
  const h = harnessNamed(name);
  if (!h) throw new UsageError(`--harness must be claude or codex, not ${name}`);
  return h;
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
    process.stderr.write("\r\x1b[K");
    printErr(`[${bar}] ${p.done}/${p.total} ${text.slice(0, 60)}`);
    if (p.done === p.total && p.event !== "start" && p.event !== "trials") printErr("\n");
    return;
  }
  printErr(`[${p.done}/${p.total}] ${text}\n`);
}

function smokeText(r: SmokeReport): string {
  const lines = [
    `smoke ${r.ok ? "passed" : "FAILED"}: ${r.env} (${r.delivery}), arm ${r.arm}, task ${r.task}`,
    `  trial: ${r.trialDir ?? r.jobDir}`,
    `  hook log: ${r.hookEvents} event(s)`,
    r.delivery === "adapter"
      ? `  sandbox id ${r.sandbox ?? "(none)"}: logged by ${r.sandboxCalls} hook call(s) inside the sandbox`
      : "  mounted delivery: the hook log came back through the bind mount (no sandbox id)",
    ...r.problems.map((p) => `  problem: ${p}`),
  ];
  return `${lines.join("\n")}\n`;
}

/** `fire screen run NAME --runner local|harbor`: runs a planned screen, resumably. */
export function registerScreenRun(screen: Command): void {
  withWorkspace(
    screen
      .command("run")
      .description("run a planned screen (resumable; Ctrl-C keeps every finished attempt)")
      .argument("<name>", "screen name (screens/<name>/)")
      .option(
        "--runner <runner>",
        "local or harbor (default: harbor with --env or --smoke, else local)",
      )
      .option(
        "--env <env>",
        "Harbor environment: docker, daytona, modal, e2b, runloop, gke, … (default docker); off docker the hook goes in through fire's Harbor agent adapter",
      )
      .option(
        "--delivery <how>",
        "how the hook payload reaches the sandbox: mounts (local docker only) or adapter (default: mounts on docker, else adapter)",
      )
      .option(
        "--adapter <file>",
        "the Harbor agent adapter (default: harbor/fire_harbor_agent.py shipped with fire)",
      )
      .option(
        "--smoke",
        "check everything, run ONE Harbor trial of a hooked arm (not stored) and prove the hook ran inside the sandbox",
      )
      .option(
        "--command <template>",
        `command template; local: per (task, arm, attempt), exit 0 = pass; harbor default: ${DEFAULT_HARBOR_TEMPLATE}`,
      )
      .option("--copy-from <dir>", "local: folder copied into each attempt's fresh working copy")
      .option(
        "--concurrency <n>",
        "attempts (local) or Harbor trials at once (Harbor's --n-concurrent)",
        "2",
      )
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
        "the agent whose hook settings each arm gets: claude or codex (local: the working copy's settings; harbor: the payload delivered into the sandbox)",
        "claude",
      )
      .option(
        "--json",
        "print {name, total, done, skipped, failed, aborted, errors} as JSON (progress stays on stderr)",
      ),
  ).action(async (name: string, opts: RunOpts) => {
    const workspace = workspaceDir(opts);
    const controller = new AbortController();
    const onSigint = (): void => {
      printErr("fire: stopping after the running attempts end; finished ones are kept\n");
      controller.abort();
    };
    process.once("SIGINT", onSigint);
    let summary: RunSummary | undefined;
    let smoke: SmokeReport | undefined;
    try {
      const runner: string = opts.runner ?? (opts.env || opts.smoke ? "harbor" : "local");
      if (runner !== "local" && runner !== "harbor")
        throw new UsageError(`--runner must be local or harbor, not ${runner}`);
      if (runner === "local" && (opts.env || opts.delivery || opts.adapter || opts.smoke))
        throw new UsageError("--env, --delivery, --adapter and --smoke are for --runner harbor");
      if (opts.delivery && opts.delivery !== "mounts" && opts.delivery !== "adapter")
        throw new UsageError(`--delivery must be mounts or adapter, not ${opts.delivery}`);
      const request = {
        workspace,
        name,
        settings: {
          runner: runner as "local" | "harbor",
          ...(opts.command ? { command: opts.command } : {}),
          ...(opts.copyFrom ? { copyFrom: opts.copyFrom } : {}),
          concurrency: positive(opts.concurrency, "--concurrency"),
          ...(opts.timeout ? { timeoutS: positive(opts.timeout, "--timeout") } : {}),
          vars: parseVars(opts.var),
          ...(opts.harborBin ? { harborBin: opts.harborBin } : {}),
          harness: harnessOf(opts.harness),
          ...(opts.env ? { env: opts.env } : {}),
          ...(opts.delivery ? { delivery: opts.delivery as "mounts" | "adapter" } : {}),
          ...(opts.adapter ? { adapter: opts.adapter } : {}),
        },
        fireBin: [process.execPath, process.argv[1] ?? "fire"],
        onProgress: progressLine,
        signal: controller.signal,
        rebuildHook: async () =>
          (await import("../../build/bundle-standalone.js")).bundleStandaloneHook(),
      };
      if (opts.smoke) smoke = await smokeScreen(request);
      else summary = await runScreen(request);
    } finally {
      process.removeListener("SIGINT", onSigint);
    }
    if (smoke) {
      printResult(opts.json, { name, ...smoke }, () => smokeText(smoke));
      if (!smoke.ok) process.exitCode = 1;
      return;
    }
    if (!summary) return;
    if (process.stderr.isTTY) process.stderr.write("\r\x1b[K"); // clear an unfinished bar
    if (!opts.json) for (const e of summary.errors) printErr(`fire: ${e}\n`);
    printResult(opts.json, { name, ...summary }, () => `${runSummaryLine(name, summary)}\n`);
    if (summary.failed || summary.aborted) process.exitCode = 1;
  });
}
