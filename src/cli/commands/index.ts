import type { Command } from "commander";

/**
 * Every top-level CLI command, in help order; each is the file `./<name>.js`, which exports
 * `register(program)`. Keep this list the only place that knows all commands.
 */
export const COMMAND_NAMES = [
  "summary",
  "import",
  "attempts",
  "show",
  "export",
  "screen",
  "report",
  "triage",
  "mine",
  "clusters",
  "cluster",
  "hook",
  "replay",
  "draft",
  "route",
  "candidate",
  "freeze",
] as const;

/** What every command module exports. */
export interface CommandModule {
  register(program: Command): void;
}

async function load(name: string): Promise<CommandModule> {
  return (await import(`./${name}.js`)) as CommandModule;
}

/**
 * Registers `summary` (the program's own action and options) and the command named `name`
 * when it is one, so a run loads only that command's module and what it imports (a spawned
 * CLI starts in about half the time of loading them all); any other first word (none,
 * `--help`, `help`, a typo) registers every command, in help order.
 */
export async function registerCommands(program: Command, name?: string): Promise<void> {
  const one = name !== "summary" && COMMAND_NAMES.some((n) => n === name);
  const names = one ? COMMAND_NAMES.filter((n) => n === "summary" || n === name) : COMMAND_NAMES;
  const modules = await Promise.all(names.map(load));
  for (const m of modules) m.register(program);
}
