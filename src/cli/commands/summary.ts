import type { Command } from "commander";
import { UsageError } from "../../core/errors.js";
import { print } from "../util/out.js";
import { renderSummary, summaryOf } from "../util/summary.js";
import { openCurrent, printJson, withWorkspace, workspaceDir } from "../util/workspace.js";

/**
 * `fire` without a command: in a terminal the workbench; otherwise the workspace summary and
 * how to use the CLI. Program
 * options become positional, so `--workspace` after a command belongs to that command.
 */
export function register(program: Command): void {
  program.enablePositionalOptions();
  withWorkspace(program)
    .usage("[options] [command]")
    .argument("[command]", "a command below; without one, the workspace summary")
    .option("--json", "print the workspace summary as JSON (never the workbench)")
    .action(async (command: string | undefined, opts: { workspace?: string; json?: boolean }) => {
      if (command !== undefined) {
        throw new UsageError(`unknown command '${command}' (see fire --help)`);
      }
      if (opts.json) {
        printJson(summaryOf(await openCurrent(opts)));
        return;
      }
      if (process.stdout.isTTY === true && process.stdin.isTTY === true) {
        // In a terminal: the interactive workbench (src/ui), loaded only here, with React's
        // production build (the development build re-renders a 100k-row workspace ~2× slower)
        process.env.NODE_ENV ??= "production";
        const { runWorkbench } = await withoutCiMarkers(() => import("../../ui/run.js"));
        await runWorkbench(workspaceDir(opts));
        return;
      }
      const ws = await openCurrent(opts);
      print(renderSummary(ws));
    });
}

/**
 * Ink takes `CI` / `CONTINUOUS_INTEGRATION` in the environment for "no terminal to draw on"
 * and then draws only the last frame, at exit: the workbench (which runs only in a terminal)
 * stayed blank. Ink reads them once, when it loads; they are hidden from it then and put back
 * after, so what the workbench runs (screen runs, $EDITOR) sees the environment unchanged.
 */
async function withoutCiMarkers<T>(load: () => Promise<T>): Promise<T> {
  const keys = ["CI", "CONTINUOUS_INTEGRATION"] as const;
  const saved = keys.map((k) => [k, process.env[k]] as const);
  for (const k of keys) delete process.env[k];
  try {
    return await load();
  } finally {
    for (const [k, v] of saved) if (v !== undefined) process.env[k] = v;
  }
}
