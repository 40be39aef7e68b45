import type { Event } from "./attempt.js";

/**
 * A tool result's exit status, the same live and in replay:
 * - `failed`: the harness flagged the call as an error, or a non-zero exit code is known;
 * - `ok`: exit code 0 is known, or the harness affirmatively reported success
 *   (`isError: false`, e.g. Claude Code's PostToolUse vs PostToolUseFailure);
 * - `unknown`: neither (e.g. Codex's PostToolUse output string with no exit status printed).
 * `unknown` never satisfies a success condition (`status: ok`).
 */
export type ExitStatus = "ok" | "failed" | "unknown";
export const EXIT_STATUSES = ["ok", "failed", "unknown"] as const;

export function exitStatus(ev: Pick<Event, "exitCode" | "isError">): ExitStatus {
  if (ev.isError === true) return "failed";
  if (ev.exitCode !== undefined) return ev.exitCode === 0 ? "ok" : "failed";
  return ev.isError === false ? "ok" : "unknown";
}

/**
 * An exit code printed in a tool's output text where the harness prints one: Codex
 * ("Process exited with code 7", "Exit code: 0"), Claude Code ("Exit code 7"). Only the head
 * of the output is searched, so the command's own output cannot fake it further down.
 */
export function exitCodeFromOutput(output: string): number | undefined {
  const head = output.length > 400 ? output.slice(0, 400) : output;
  const m = /(?:Process exited with code|^Exit code:?|exit_code["']?:)\s*(-?\d+)/m.exec(head);
  return m ? Number(m[1]) : undefined;
}
