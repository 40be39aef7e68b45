/**
 * Kinds of normalized events, in the order a harness sees them. Free of zod so the hook's
 * hot path (the condition atoms) can name them; `EventKind` (attempt.ts) validates them.
 */
export const EVENT_KINDS = [
  "prompt",
  "message",
  "reasoning",
  "tool_call",
  "tool_result",
  "stop",
  "hook",
] as const;
