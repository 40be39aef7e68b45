import type { Command } from "commander";

/**
 * Every CLI command registers itself here: one import and one call per command
 * file. Keep this list the only place that knows all commands.
 */
export function registerAll(program: Command): void {
  void program;
}
