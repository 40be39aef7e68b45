import type { HookHarness } from "../core/hooklog.js";
import type { Event } from "../core/model/attempt.js";
import type { HookInput } from "./hook-events.js";

/** Caps on text handed to the evaluator (patterns see at most this much). */
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
 * undefined for events the evaluator does not see (SessionStart / SessionEnd).
 */
export function toEvent(input: HookInput): Omit<Event, "index"> | undefined {
  switch (input.hook_event_name) {
    case "UserPromptSubmit":
      return { kind: "prompt", role: "user", input: cap(input.prompt ?? "", INPUT_CAP) };
    case "PreToolUse":
      return { kind: "tool_call", ...toolFields(input) };
    case "PostToolUse":
      return { kind: "tool_result", ...toolFields(input), ...resultFields(input.tool_response) };
    case "Stop":
      return { kind: "stop" };
    default:
      return undefined;
  }
}

/** The shell command of a tool input (`command` string, or argv array joined with spaces). */
export function commandOf(toolInput: Record<string, unknown> | undefined): string | undefined {
  const c = toolInput?.command ?? toolInput?.cmd;
  if (typeof c === "string") return c;
  if (Array.isArray(c) && c.every((x) => typeof x === "string")) return c.join(" ");
  return undefined;
}

function toolFields(input: HookInput): Partial<Event> {
  const out: Partial<Event> = { tool: input.tool_name };
  const command = commandOf(input.tool_input);
  if (command !== undefined) out.command = cap(command, INPUT_CAP);
  else if (input.tool_input) out.input = cap(JSON.stringify(input.tool_input), INPUT_CAP);
  const writes = writesOf(input.tool_input);
  if (writes.length) out.writes = writes;
  if (input.tool_use_id) out.callId = input.tool_use_id;
  return out;
}

function writesOf(toolInput: Record<string, unknown> | undefined): string[] {
  const p = toolInput?.file_path ?? toolInput?.notebook_path;
  return typeof p === "string" ? [p] : [];
}

/** Claude sends `{stdout, stderr, interrupted, …}`; Codex sends the output string. */
function resultFields(resp: unknown): Partial<Event> {
  let text: string | undefined;
  let exitCode: number | undefined;
  let isError: boolean | undefined;
  if (typeof resp === "string") text = resp;
  else if (resp && typeof resp === "object" && !Array.isArray(resp)) {
    const r = resp as Record<string, unknown>;
    const parts = [r.stdout, r.stderr, r.output, r.content].filter(
      (x): x is string => typeof x === "string" && x.length > 0,
    );
    text = parts.join("\n");
    const code = r.exit_code ?? r.exitCode ?? r.returnCode ?? r.code;
    if (typeof code === "number" && Number.isInteger(code)) exitCode = code;
    if (r.interrupted === true || r.is_error === true || r.isError === true) isError = true;
  }
  const out: Partial<Event> = {};
  if (text !== undefined) {
    out.output = cap(text, OUTPUT_CAP);
    out.outputBytes = Buffer.byteLength(text);
  }
  if (exitCode !== undefined) out.exitCode = exitCode;
  if (isError) out.isError = true;
  return out;
}

function cap(s: string, n: number): string {
  return s.length > n ? s.slice(0, n) : s;
}
