#!/usr/bin/env node
import { Command, CommanderError } from "commander";
import { InputError, UsageError } from "../core/errors.js";
import { registerAll } from "./commands/index.js";

/** Builds the `fire` program; every command lives in its own file under commands/. */
export function buildProgram(): Command {
  const program = new Command("fire")
    .description(
      "fire: turn failed coding-agent attempts into screened, frozen runtime policies (hooks).",
    )
    .version("0.1.0")
    .showHelpAfterError()
    .exitOverride();
  registerAll(program);
  return program;
}

async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
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

main(process.argv).then((code) => {
  process.exitCode = code;
});
