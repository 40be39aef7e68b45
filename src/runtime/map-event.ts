import type { HookHarness } from "../core/hook-log.js";
import { isPatchTool, shellCommand, writtenPaths } from "../core/ingest/shell.js";
import type { Event } from "../core/model/attempt.js";
import { exitCodeFromOutput } from "../core/model/exit-status.js";
import type { HookInput } from "./hook-events.js";

/**
 * Caps on text handed to the evaluator (head and tail halves kept; patterns then see the
 * first and last 4 KiB of it, MATCH_CAP).
 */
export const OUTPUT_CAP = 64 * 1024;
export const INPUT_CAP = 16 * 1024;

/** Which client sent the event: Codex rollouts and turn ids vs Claude Code project transcripts. */
export function detectHarness(input: HookInput, env: NodeJS.ProcessEnv): HookHarness {
  const t = typeof input.transcript_path === "string" ? input.transcript_path : "";
  if (input.turn_id !== undefined || /(^|[\\/])rollout-[^\\/]*\.jsonl$/.test(t)) return "codex";
  if (/[\\/]\.claude[\\/]projects[\\/]/.test(t) || env.CLAUDE_PROJECT_DIR) return "claude";
  if (env.CODEX_HOME) return "codex";
  return "unknown";
}

/**
 * Maps one harness event to the normalized Event (index filled by the caller), or
 * undefined for events the evaluator does not see (SessionStart / SessionEnd). The fields
 * mean what the importers make of the client's own session log (docs/hook.md: event mapping):
 * - Claude `PostToolUseFailure` (`error: "Exit code 7"`) is a failed tool result;
 * - Claude `PostToolUse` is sent only for a call that succeeded (`isError: false`);
 * - Codex `PostToolUse.tool_response` is the output string only: its exit status comes from
 *   the text where Codex prints one (`Exit code: 0`), else from the rollout's record of the
 *   call (`exitFromTranscript`), else it stays unknown (never a success);
 * - `apply_patch` is no shell command: `input` = the patch, `writes` = the patched paths;
 * - a tool result carries the tool and call id, not the call's command (as in import).
 */
export function toEvent(
  input: HookInput,
  exitFromTranscript: ExitLookup = noLookup,
): Omit<Event, "index"> | undefined {
  switch (input.hook_event_name) {
    case "UserPromptSubmit":
      return { kind: "prompt", role: "user", input: cap(input.prompt ?? "", INPUT_CAP) };
    case "PreToolUse":
      return { kind: "tool_call", ...toolFields(input) };
    case "PostToolUse":
      return {
        kind: "tool_result",
        ...resultOf(input),
        ...resultFields(input, exitFromTranscript),
      };
    case "PostToolUseFailure":
      return { kind: "tool_result", ...resultOf(input), ...failureFields(input) };
    case "Stop":
    case "SubagentStop":
      return { kind: "stop", ...stopFields(input) };
    default:
      return undefined;
  }
}

/**
 * What a Stop says of the agent's end, where the client sends it: `last_assistant_message`
 * (both clients) as `final`, capped as a prompt is; the length of Claude Code's
 * `background_tasks` list as `background`. Absent (unknown) otherwise.
 */
function stopFields(input: HookInput): { final?: string; background?: number } {
  const out: { final?: string; background?: number } = {};
  const m = input.last_assistant_message;
  if (typeof m === "string" && m.length > 0) out.final = cap(m, INPUT_CAP);
  const b = input.background_tasks;
  if (Array.isArray(b)) out.background = b.length;
  return out;
}

/** Finds a call's exit code in the client's session log (Codex rollout), if it is there. */
export type ExitLookup = (transcriptPath: string, callId: string) => number | undefined;
const noLookup: ExitLookup = () => undefined;

/** The shell command of a tool call, as the importers read it (shell tools only). */
export function commandOf(
  toolInput: Record<string, unknown> | undefined,
  tool = "Bash",
): string | undefined {
  return shellCommand(tool, toolInput);
}

function toolFields(input: HookInput): Partial<Event> {
  const tool = input.tool_name ?? "";
  const out: Partial<Event> = { tool: input.tool_name };
  const args = input.tool_input;
  // Codex hands apply_patch to hooks as {command: <patch>}; its rollout has the bare patch.
  const patch = isPatchTool(tool) ? patchOf(args) : undefined;
  const command = patch === undefined ? commandOf(args, tool) : undefined;
  // the whole command: deny rules must see all of it (patterns run in linear time)
  if (command !== undefined) out.command = command;
  if (patch !== undefined) out.input = cap(patch, INPUT_CAP);
  else if (args) out.input = cap(JSON.stringify(args), INPUT_CAP);
  const writes = writtenPaths(tool, patch ?? args);
  if (writes?.length) out.writes = writes;
  if (input.tool_use_id) out.callId = input.tool_use_id;
  return out;
}

/** A result names its call (tool, callId); command and writes belong to the call. */
function resultOf(input: HookInput): Partial<Event> {
  const out: Partial<Event> = { tool: input.tool_name };
  if (input.tool_use_id) out.callId = input.tool_use_id;
  return out;
}

function patchOf(args: Record<string, unknown> | undefined): string | undefined {
  const p = args?.input ?? args?.patch ?? args?.command;
  return typeof p === "string" ? p : undefined;
}

/** Claude sends `{stdout, stderr, interrupted, …}`; Codex sends the output string. */
function resultFields(input: HookInput, exitFromTranscript: ExitLookup): Partial<Event> {
  const resp = input.tool_response;
  let text: string | undefined;
  let exitCode: number | undefined;
  let isError: boolean | undefined;
  if (typeof resp === "string") {
    text = resp;
    exitCode = exitCodeFromOutput(resp);
    if (exitCode === undefined && input.transcript_path && input.tool_use_id)
      exitCode = exitFromTranscript(input.transcript_path, input.tool_use_id);
  } else if (resp && typeof resp === "object" && !Array.isArray(resp)) {
    const r = resp as Record<string, unknown>;
    const parts = [r.stdout, r.stderr, r.output, r.content].filter(
      (x): x is string => typeof x === "string" && x.length > 0,
    );
    text = parts.join("\n");
    const code = r.exit_code ?? r.exitCode ?? r.returnCode ?? r.code;
    if (typeof code === "number" && Number.isInteger(code)) exitCode = code;
    // Claude Code sends PostToolUse only for a call that worked (failures: PostToolUseFailure).
    isError = r.interrupted === true || r.is_error === true || r.isError === true;
  }
  const out: Partial<Event> = {};
  if (text !== undefined) {
    out.output = cap(text, OUTPUT_CAP);
    out.outputBytes = Buffer.byteLength(text);
  }
  if (exitCode !== undefined) out.exitCode = exitCode;
  if (isError !== undefined) out.isError = isError;
  return out;
}

/** Claude's PostToolUseFailure: `{error: "Exit code 7", is_interrupt}`, always a failure. */
function failureFields(input: HookInput): Partial<Event> {
  const text = typeof input.error === "string" ? input.error : "";
  const out: Partial<Event> = {
    output: cap(text, OUTPUT_CAP),
    outputBytes: Buffer.byteLength(text),
    isError: true,
  };
  const exitCode = exitCodeFromOutput(text);
  if (exitCode !== undefined) out.exitCode = exitCode;
  return out;
}

/**
 * Text over `n` characters keeps its first and last halves (joined by a newline; n characters in all), as the
 * evaluator's own cap does: a task, input or output longer than the cap still shows the
 * evaluator its end (an eligibility phrase at the end of a huge prompt is seen).
 */
function cap(s: string, n: number): string {
  if (s.length <= n) return s;
  const head = Math.floor((n - 1) / 2);
  return `${s.slice(0, head)}\n${s.slice(s.length - (n - 1 - head))}`;
}
