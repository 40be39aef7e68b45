/**
 * The exit code in the report a CLI agent's shell tool hands its model when the report ends
 * with fixed fields after the command's output: Gemini CLI's `run_shell_command` ("Command: …
 * \nDirectory: …\nOutput: …\nError: …\nExit Code: N\nSignal: …\nBackground PIDs: …\nProcess
 * Group PGID: …") and zrb's `Bash` ("Command: …\nDirectory: …\nStdout: …\nStderr: …\nExit Code:
 * N\nBackground PIDs: …", no signal line). Only a report that opens with `Command: ` and ends
 * with those fields counts: the command's own output comes before them and cannot stand in for
 * the end. `(none)` (the command was ended by a signal) is no exit code.
 */
const TRAILER =
  /\nExit Code: (-?\d+|\(none\))(?:\nSignal: [^\n]*)?(?:\nBackground PIDs: [^\n]*)?(?:\nProcess Group PGID: [^\n]*)?\s*$/;

export function shellReportExit(output: string): number | undefined {
  if (!output.startsWith("Command: ")) return undefined;
  const m = TRAILER.exec(output.slice(-400));
  return m?.[1] && m[1] !== "(none)" ? Number(m[1]) : undefined;
}
