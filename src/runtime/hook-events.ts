/**
 * The hook events fire answers (both clients send these names; Claude Code also sends
 * PostToolUseFailure for a failed tool call and SubagentStop when a sub-agent finishes).
 */
export const HOOK_EVENTS = [
  "UserPromptSubmit",
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "Stop",
  "SubagentStop",
  "SessionStart",
  "SessionEnd",
] as const;

/** Events that carry a tool call (`tool_name` required). */
export const TOOL_EVENTS: readonly HookEventName[] = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
];
export type HookEventName = (typeof HOOK_EVENTS)[number];

/** One event on the hook's stdin, after `checkHookInput` accepted it. */
export interface HookInput {
  session_id: string;
  transcript_path?: string | null;
  cwd?: string;
  hook_event_name: HookEventName;
  prompt?: string;
  tool_name?: string;
  tool_input?: Record<string, unknown>;
  tool_response?: unknown;
  tool_use_id?: string;
  stop_hook_active?: boolean;
  turn_id?: string;
  /** PostToolUseFailure: why the call failed (`"Exit code 7"`). */
  error?: string;
  is_interrupt?: boolean;
  /** A Claude Code sub-agent's id: its events share the parent's session_id. */
  agent_id?: string;
  agent_transcript_path?: string;
  /** Stop (both clients): the agent's last message. */
  last_assistant_message?: unknown;
  /** Stop (Claude Code): the background tasks still running, a list. */
  background_tasks?: unknown;
  [key: string]: unknown;
}
