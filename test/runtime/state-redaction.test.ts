import { describe, expect, it } from "vitest";
import { hook, stateOf, tempWorkspace } from "./hook-helpers.js";

describe("the session state's task text", () => {
  it("is stored redacted, and stays so when later events write it back unchanged", () => {
    const ws = tempWorkspace();
    const key = `sk-proj-${"Ab3xY9".repeat(8)}`;
    const base = { session_id: "s-redact", cwd: ws };
    const prompt = {
      ...base,
      hook_event_name: "UserPromptSubmit",
      prompt: `Clean the build directory with the API token ${key}, then finish.`,
    };
    const call = {
      ...base,
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "ls" },
      tool_use_id: "t1",
    };
    expect(hook(ws, prompt).status).toBe(0);
    const first = stateOf(ws, "s-redact").taskText as string;
    expect(first).toContain("[REDACTED:");
    expect(first).not.toContain(key);
    for (let i = 0; i < 2; i++) {
      expect(hook(ws, { ...call, tool_use_id: `t${i}` }).status).toBe(0);
      // written back as read: the same redacted text, the key never in the file
      expect(stateOf(ws, "s-redact").taskText).toBe(first);
    }
  });
});
