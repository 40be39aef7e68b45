import { z } from "zod";

/**
 * The Codex rollout layout before the `{timestamp, type, payload}` wrapper (codex-rs
 * `core/src/rollout.rs`, May 2025 to rust-v0.32.0): line 1 is a bare session header
 * `{id, timestamp, instructions[, git]}`, every later line a raw Responses API item
 * (`message`, `function_call`, `function_call_output`, `reasoning`, `local_shell_call`, …)
 * or a `{"record_type":"state"}` bookkeeping line.
 */
const LEGACY_FIRST = /^\s*\{"id":"[^"]*","timestamp":"[^"]*"/;
const LEGACY_NEXT =
  /\n\s*\{(?:"record_type":"state"|"type":"(?:message|function_call|function_call_output|reasoning|local_shell_call)")/;

/** Content detection for the pre-wrapper layout: the header line, then a state line or an item. */
export function isLegacyCodexHead(head: string): boolean {
  return LEGACY_FIRST.test(head) && LEGACY_NEXT.test(head);
}

const Meta = z.object({
  id: z.string(),
  timestamp: z.string(),
  instructions: z.string().nullish(),
});
const State = z.object({ record_type: z.literal("state") });
const Item = z.looseObject({ type: z.string(), timestamp: z.string().optional() });
const LegacyLine = z.union([State, Item, Meta]);

export const LEGACY_WHAT =
  "a pre-wrapper Codex rollout line (session header, response item or record_type state)";

/** A legacy line in the wrapped form's terms, `skip` for state lines, or why it is not one. */
export type Unwrapped =
  | { ok: true; type: string; payload: Record<string, unknown>; ts?: string }
  | { ok: true; skip: true }
  | { ok: false; issues: z.core.$ZodIssue[] };

export function unwrapLegacy(row: Record<string, unknown>): Unwrapped {
  const v = LegacyLine.safeParse(row);
  if (!v.success) return { ok: false, issues: v.error.issues };
  const d = v.data as Record<string, unknown>;
  if (d.record_type === "state") return { ok: true, skip: true };
  if (typeof d.type === "string")
    return {
      ok: true,
      type: "response_item",
      payload: row,
      ts: row.timestamp as string | undefined,
    };
  return { ok: true, type: "session_meta", payload: row, ts: row.timestamp as string };
}
