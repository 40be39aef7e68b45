import type { Command } from "commander";
import { UsageError } from "../../core/errors.js";
import { renderSummary } from "../util/summary.js";
import { openWorkspace, withWorkspace } from "../util/workspace.js";

/**
 * `fire` without a command: the workspace summary and how to use the CLI. Program
 * options become positional, so `--workspace` after a command belongs to that command.
 */
export function registerSummary(program: Command): void {
  program.enablePositionalOptions();
  withWorkspace(program)
    .usage("[options] [command]")
    .argument("[command]", "a command below; without one, the workspace summary")
    .action(async (command: string | undefined, opts: { workspace?: string }) => {
      if (command !== undefined) {
        throw new UsageError(`unknown command '${command}' (see fire --help)`);
      }
      const ws = await openWorkspace(opts);
      process.stdout.write(renderSummary(ws));
    });
}
