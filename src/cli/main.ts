#!/usr/bin/env node
import type { Command } from "commander";

/**
 * `fire hook` runs inside the agent harness on every event, so it is dispatched here before
 * commander and the other commands are loaded (`hook install|uninstall` go through commander).
 */
/** `fire hook <sub>` that commander handles; any other `fire hook …` is the live hook. */
const HOOK_SUBCOMMANDS = new Set(["install", "uninstall", "doctor", "--help", "-h"]);

function isHookRun(argv: string[]): boolean {
  return argv[2] === "hook" && !HOOK_SUBCOMMANDS.has(argv[3] ?? "");
}

/**
 * Builds the `fire` program; every command lives in its own file under commands/. With
 * `command` (argv's first word) only that command's module is loaded when it names one.
 */
export async function buildProgram(command?: string): Promise<Command> {
  const [{ Command }, { registerCommands }] = await Promise.all([
    import("commander"),
    import("./commands/index.js"),
  ]);
  const program = new Command("fire")
    .description(
      "fire: turn failed coding-agent attempts into screened, frozen runtime policies (hooks).",
    )
    .version("0.1.0")
    .showHelpAfterError()
    .exitOverride();
  await registerCommands(program, command);
  return program;
}

async function main(argv: string[]): Promise<number> {
  if (isHookRun(argv)) {
    const { hookModuleUrl } = await import("../runtime/select.js");
    const { runHookCli } = (await import(hookModuleUrl())) as typeof import("../runtime/main.js");
    return runHookCli(argv.slice(3));
  }
  const program = await buildProgram(argv[2]);
  const [{ CommanderError }, { InputError, UsageError }] = await Promise.all([
    import("commander"),
    import("../core/errors.js"),
  ]);
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here with code 0; usage problems exit 2.
      return err.exitCode === 0 ? 0 : 2;
    }
    if (err instanceof UsageError) {
      process.stderr.write(`fire: ${err.message}\n`);
      return 2;
    }
    if (err instanceof InputError) {
      process.stderr.write(`fire: ${err.format()}\n`);
      return 1;
    }
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`fire: ${message}\n`);
    return 1;
  }
}

/**
 * A reader that stops early (`fire export | head`) closes the pipe: the output is no longer
 * wanted, so the process ends quietly with success instead of printing an EPIPE stack trace.
 */
export function endQuietlyOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(0);
    throw err;
  });
}

// Not on the hook path: touching process.stdout loads the whole streams stack (~10% of a
// hook call); the hook writes its answer with writeSync and handles EPIPE itself.
if (!isHookRun(process.argv)) endQuietlyOnClosedPipe(process.stdout);
main(process.argv).then((code) => {
  process.exitCode = code;
});
