import { z } from "zod";
import { HOOK_EVENTS, TOOL_EVENTS } from "./hook-events.js";

/**
 * The zod schema of one hook event on stdin, as Claude Code 2.1.332 and Codex 0.171.0 send
 * it (`../shared/fixtures/real-clients/*\/hook-events.jsonl`). Unknown keys pass through
 * (both clients add fields: permission_mode, turn_id, model, effort, …).
 *
 * The hook's hot path checks stdin with `checkHookInput` (guard.ts), which is a zod-free
 * transcription of this schema: loading zod costs more than the hook's whole time budget.
 * A property test keeps the two equivalent; this schema explains rejections in the log.
 */
export const HookInputSchema = z
  .looseObject({
    session_id: z.string().min(1),
    transcript_path: z.string().nullish(),
    cwd: z.string().optional(),
    hook_event_name: z.enum(HOOK_EVENTS),
    prompt: z.string().optional(),
    tool_name: z.string().optional(),
    tool_input: z.record(z.string(), z.unknown()).optional(),
    tool_response: z.unknown().optional(),
    tool_use_id: z.string().optional(),
    stop_hook_active: z.boolean().optional(),
    turn_id: z.string().optional(),
    error: z.string().optional(),
    is_interrupt: z.boolean().optional(),
    agent_id: z.string().optional(),
    agent_transcript_path: z.string().optional(),
  })
  .superRefine((v, ctx) => {
    const toolEvent = TOOL_EVENTS.includes(v.hook_event_name);
    if (toolEvent && v.tool_name === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["tool_name"],
        message: `required for ${v.hook_event_name}`,
      });
    if (v.hook_event_name === "UserPromptSubmit" && v.prompt === undefined)
      ctx.addIssue({ code: "custom", path: ["prompt"], message: "required for UserPromptSubmit" });
  });

/** Explains why stdin was rejected (loads zod: only on the fault path). */
export function explainHookInput(value: unknown): string | undefined {
  const r = HookInputSchema.safeParse(value);
  if (r.success) return undefined;
  return r.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length ? i.path.join(".") : "event"}: ${i.message}`)
    .join("; ");
}
