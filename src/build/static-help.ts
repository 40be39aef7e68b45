import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import writeFileAtomic from "write-file-atomic";
import { buildProgram, FIRE_VERSION, HELP_WIDTH } from "../cli/run.js";
import { HELP_FILE, helpSources, type StoredHelp } from "../cli/static-help.cjs";

const CLI = resolve(dirname(fileURLToPath(import.meta.url)), "..", "cli");

/**
 * Build step: renders `fire --help` (every command registered, wrapped at HELP_WIDTH) into
 * dist/cli/help.json with the stamps of the modules it comes from, so the bin answers
 * `fire --help` and `fire --version` without loading them (src/cli/static-help.cts).
 */
export async function writeStaticHelp(cliDir = CLI): Promise<StoredHelp> {
  const program = await buildProgram();
  program.configureOutput({ getOutHelpWidth: () => HELP_WIDTH });
  const stored: StoredHelp = {
    version: FIRE_VERSION,
    help: program.helpInformation(),
    width: HELP_WIDTH,
    sources: helpSources(cliDir),
  };
  await writeFileAtomic(join(cliDir, HELP_FILE), `${JSON.stringify(stored)}\n`);
  return stored;
}
