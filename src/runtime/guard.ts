import { HOOK_EVENTS, type HookEventName, type HookInput, TOOL_EVENTS } from "./hook-events.js";

/**
 * Zod-free check of one parsed stdin value against `HookInputSchema` (hook-input.ts):
 * the same acceptance, kept equal by a property test. Returns the typed event or
 * `undefined` (the caller then asks the zod schema for the reason).
 */
export function checkHookInput(v: unknown): HookInput | undefined {
  if (!isPlainObject(v)) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.session_id !== "string" || o.session_id.length === 0) return undefined;
  if (!isOptional(o.transcript_path, "string", true)) return undefined;
  if (!isOptional(o.cwd, "string")) return undefined;
  if (!HOOK_EVENTS.includes(o.hook_event_name as HookEventName)) return undefined;
  if (!isOptional(o.prompt, "string")) return undefined;
  if (!isOptional(o.tool_name, "string")) return undefined;
  if (o.tool_input !== undefined && !isPlainObject(o.tool_input)) return undefined;
  if (!isOptional(o.tool_use_id, "string")) return undefined;
  if (!isOptional(o.stop_hook_active, "boolean")) return undefined;
  if (!isOptional(o.turn_id, "string")) return undefined;
  if (!isOptional(o.error, "string")) return undefined;
  if (!isOptional(o.is_interrupt, "boolean")) return undefined;
  if (!isOptional(o.agent_id, "string")) return undefined;
  if (!isOptional(o.agent_transcript_path, "string")) return undefined;
  const event = o.hook_event_name as HookEventName;
  if (TOOL_EVENTS.includes(event) && o.tool_name === undefined) return undefined;
  if (event === "UserPromptSubmit" && o.prompt === undefined) return undefined;
  return o as HookInput;
}

function isOptional(x: unknown, type: "string" | "boolean", nullable = false): boolean {
  return x === undefined || (nullable && x === null) || typeof x === type;
}

function isPlainObject(x: unknown): boolean {
  if (typeof x !== "object" || x === null || Array.isArray(x)) return false;
  const proto = Object.getPrototypeOf(x);
  return proto === Object.prototype || proto === null;
}
