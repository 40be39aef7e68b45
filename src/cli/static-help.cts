import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/**
 * `fire --help` and `fire --version` answered without loading commander or any command:
 * the build (src/build/static-help.ts) renders the program's help once and stores it in
 * dist/cli/help.json with the size and mtime of every module the help comes from. The `fire`
 * bin prints the stored text while those modules are unchanged and the terminal is at
 * least as wide as the help (commander wraps at min(columns, run.ts's HELP_WIDTH)); otherwise the
 * ES module CLI renders it as before. CommonJS, so the bin loads it without the ES loader.
 */
export const HELP_FILE = "help.json";

export interface StoredHelp {
  version: string;
  help: string;
  /** The width the help is wrapped at (run.ts's HELP_WIDTH). */
  width: number;
  /** Size and mtime of each module the help text comes from, by path relative to dist/cli. */
  sources: Record<string, string>;
}

const HELP_ARGS = new Set(["--help", "-h", "help"]);
const VERSION_ARGS = new Set(["--version", "-V"]);

/** The modules whose code makes the top-level help: the program and every command. */
export function helpSources(cliDir: string): Record<string, string> {
  const stamps: Record<string, string> = {};
  const names = ["run.js", ...readdirSync(join(cliDir, "commands")).map((n) => `commands/${n}`)];
  for (const name of names.filter((n) => n.endsWith(".js")).sort()) {
    const st = statSync(join(cliDir, name));
    stamps[name] = `${st.size}-${Math.trunc(st.mtimeMs)}`;
  }
  return stamps;
}

/**
 * What `fire <args>` prints when it is only the top-level help or the version and the stored
 * answer is current; undefined when commander must answer.
 */
export function staticAnswer(args: readonly string[], cliDir: string): string | undefined {
  if (args.length !== 1) return undefined;
  const arg = args[0] as string;
  const help = HELP_ARGS.has(arg);
  if (!help && !VERSION_ARGS.has(arg)) return undefined;
  try {
    const stored = JSON.parse(readFileSync(join(cliDir, HELP_FILE), "utf8")) as StoredHelp;
    if (
      typeof stored?.help !== "string" ||
      typeof stored.version !== "string" ||
      typeof stored.width !== "number"
    )
      return undefined;
    const now = helpSources(cliDir);
    const then = stored.sources ?? {};
    const keys = Object.keys(now);
    if (keys.length !== Object.keys(then).length || keys.some((k) => now[k] !== then[k]))
      return undefined;
    if (!help) return `${stored.version}\n`;
    return terminalWidth() >= stored.width ? stored.help : undefined;
  } catch {
    return undefined;
  }
}

/** The terminal's columns; infinite when stdout is not a terminal (commander wraps at 80 then). */
function terminalWidth(): number {
  const { isatty } = require("node:tty") as typeof import("node:tty");
  if (!isatty(1)) return Number.POSITIVE_INFINITY;
  return process.stdout.columns || Number.POSITIVE_INFINITY;
}
