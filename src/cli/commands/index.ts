import type { Command } from "commander";
import { registerReport } from "./report.js";
import { registerScreen } from "./screen.js";

/**
 * Every CLI command registers itself here: one import and one call per command
 * file. Keep this list the only place that knows all commands.
 */
export function registerAll(program: Command): void {
  registerScreen(program);
  registerReport(program);
}
