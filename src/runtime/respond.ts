import type { Verdict } from "../core/policy/types.js";
import type { HookEventName } from "./hook-events.js";

/** What the hook prints: the protocol object, or null for "nothing to say" (empty stdout). */
export type HookOutput = Record<string, unknown> | null;

const FALLBACK_REASON = "fire: this tool call is blocked by a runtime policy.";

/**
 * Translates a verdict into the Claude Code / Codex hook protocol (identical for both):
 * - deny at PreToolUse → permissionDecision "deny" with a non-empty reason;
 * - instruct (or deny) at Stop / SubagentStop → `{"decision":"block","reason"}` (another turn);
 * - instruct (or deny) at UserPromptSubmit / PreToolUse / PostToolUse(Failure) → additionalContext.
 * A deny anywhere but before a tool call cannot block anything, so it is delivered as text.
 */
export function toHookOutput(event: HookEventName, verdict: Verdict): HookOutput {
  if (verdict.action === "allow") return null;
  const text = verdict.message.trim();
  if (event === "PreToolUse" && verdict.action === "deny") return denyOutput(text);
  if (!text) return null;
  switch (event) {
    case "Stop":
    case "SubagentStop":
      return { decision: "block", reason: text };
    case "UserPromptSubmit":
    case "PreToolUse":
    case "PostToolUse":
    case "PostToolUseFailure":
      return { hookSpecificOutput: { hookEventName: event, additionalContext: text } };
    default:
      return null;
  }
}

/** A PreToolUse deny; Codex rejects an empty reason, so one is always given. */
export function denyOutput(reason: string): HookOutput {
  return {
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: reason.trim() || FALLBACK_REASON,
    },
  };
}
