import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkHookInput } from "../../src/runtime/guard.js";
import { explainHookInput, HookInputSchema } from "../../src/runtime/hook-input.js";
import { CLIENTS, clientEvents } from "./hook-helpers.js";

const anyValue = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.constantFrom("", "Bash", "PreToolUse", "Stop"),
  fc.boolean(),
  fc.integer(),
  fc.constant(null),
  fc.constant([]),
  fc.constant({}),
  fc.dictionary(fc.constantFrom("command", "file_path"), fc.string({ maxLength: 3 })),
);
const eventName = fc.oneof(
  fc.constantFrom(
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "Stop",
    "SessionStart",
    "SessionEnd",
  ),
  anyValue,
);
const hookish = fc.record(
  {
    session_id: fc.oneof(fc.constantFrom("s1", ""), anyValue),
    transcript_path: anyValue,
    cwd: anyValue,
    hook_event_name: eventName,
    prompt: anyValue,
    tool_name: anyValue,
    tool_input: anyValue,
    tool_response: anyValue,
    tool_use_id: anyValue,
    stop_hook_active: anyValue,
    turn_id: anyValue,
    extra: anyValue,
  },
  { requiredKeys: [] },
);

describe("checkHookInput (zod-free hot path) accepts exactly what HookInputSchema accepts", () => {
  it("on every real Claude Code and Codex event", () => {
    const events = CLIENTS.flatMap(clientEvents);
    expect(events).toHaveLength(40);
    for (const e of events) {
      expect(checkHookInput(e)).toBe(e);
      expect(HookInputSchema.safeParse(e).success).toBe(true);
    }
  });

  it("on generated near-events (property)", () => {
    fc.assert(
      fc.property(fc.oneof(hookish, anyValue), (v) => {
        expect(checkHookInput(v) !== undefined).toBe(HookInputSchema.safeParse(v).success);
      }),
      { numRuns: 3000 },
    );
  });

  it("names the offending field when it rejects", () => {
    const e = clientEvents("codex-rm-deny")[2] as Record<string, unknown>;
    expect(explainHookInput({ ...e, hook_event_name: "Notification" })).toMatch(
      /^hook_event_name: /,
    );
    expect(explainHookInput({ ...e, session_id: 7 })).toMatch(/^session_id: /);
    expect(explainHookInput({ ...e, tool_input: "rm -rf /" })).toMatch(/^tool_input: /);
    expect(explainHookInput(e)).toBeUndefined();
  });
});
