/** The hook events fire answers (both clients send these names). */
export const HOOK_EVENTS = [
  "UserPromptSubmit",
  "PreToolUse",
  "PostToolUse",
  "Stop",
  "SessionStart",
  "SessionEnd",
] as const;
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
  [key: string]: unknown;
}
