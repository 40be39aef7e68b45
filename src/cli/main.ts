#!/usr/bin/env node
/**
 * `fire hook` runs inside the agent harness on every event, so it is dispatched here before
 * commander and the other commands are loaded (`hook install|uninstall` go through commander).
 */
/** `fire hook <sub>` that commander handles; any other `fire hook …` is the live hook. */
const HOOK_SUBCOMMANDS = new Set(["install", "uninstall", "doctor", "--help", "-h"]);

function isHookRun(argv: string[]): boolean {
  return argv[2] === "hook" && !HOOK_SUBCOMMANDS.has(argv[3] ?? "");
}

async function main(argv: string[]): Promise<number> {
  if (isHookRun(argv)) {
    const { hookModuleUrl } = await import("../runtime/select.js");
    const { runHookCli } = (await import(hookModuleUrl())) as typeof import("../runtime/main.js");
    return runHookCli(argv.slice(3));
  }
  const { runCli } = await import("./run.js");
  return runCli(argv);
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
