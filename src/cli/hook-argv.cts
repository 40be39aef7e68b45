/** `fire hook <sub>` that commander handles; any other `fire hook …` is the live hook. */
const HOOK_SUBCOMMANDS = new Set([
  "install",
  "uninstall",
  "doctor",
  "enforce",
  "observe",
  "report",
  "--help",
  "-h",
]);

/**
 * Whether this command line is the live hook (`fire hook [flags]`), which runs inside the
 * agent harness on every event and so is dispatched before commander and the other commands
 * are loaded. CommonJS, so the `fire` bin (fire.cts) and the ES module CLI share it.
 */
export function isHookRun(argv: readonly string[]): boolean {
  return argv[2] === "hook" && !HOOK_SUBCOMMANDS.has(argv[3] ?? "");
}
