import { describe, expect, it } from "vitest";
import { logEntries } from "../runtime/hook-helpers.js";
import { preToolUse, promptEvent, rmWorkspace, runHookChild } from "./helpers.js";

/** Issue 16 item 3: size must not bypass a deny. */
const setup = () => rmWorkspace("fire-attack-3-");

const denied = (stdout: string) =>
  stdout.trim() !== "" && JSON.parse(stdout).hookSpecificOutput?.permissionDecision === "deny";

describe("attack 3: size-based deny bypass", () => {
  it("an oversized PreToolUse (5 MB stdin) is denied under --fail-closed, its name logged", async () => {
    const { ws, args } = setup();
    const input = JSON.stringify(preToolUse("big", `rm -rf / ${"x".repeat(5 * 1024 * 1024)}`));
    const closed = await runHookChild([...args, "--fail-closed"], input, { cwd: ws });
    expect(denied(closed.stdout)).toBe(true);
    const open = await runHookChild(args, input, { cwd: ws });
    expect(open.stdout).toBe(""); // fail open without the flag, but logged with what it was
    const last = logEntries(ws).at(-1);
    expect(last?.error).toMatch(/stdin exceeds/);
    expect([last?.event, last?.tool]).toEqual(["PreToolUse", "Bash"]);
  }, 60_000);

  it("an oversized event that is not a tool call is not answered with a deny", async () => {
    const { ws, args } = setup();
    const input = JSON.stringify(promptEvent("big", "y".repeat(5 * 1024 * 1024)));
    const r = await runHookChild([...args, "--fail-closed"], input, { cwd: ws });
    expect(r.stdout).toBe("");
    expect(logEntries(ws).at(-1)?.event).toBe("UserPromptSubmit");
  }, 60_000);

  it("deny rules see the whole command: rm -rf in the middle of a long one is denied", async () => {
    const { ws, args } = setup();
    for (const pad of [9_000, 20_000, 1_000_000]) {
      const session = `mid-${pad}`;
      await runHookChild(args, JSON.stringify(promptEvent(session)), { cwd: ws });
      const command = `echo ${"a".repeat(pad)} ; rm -rf /srv ; echo ${"b".repeat(pad)}`;
      const input = JSON.stringify(preToolUse(session, command));
      // without --fail-closed too: the rule itself matches, nothing is a fault
      const r = await runHookChild(args, input, { cwd: ws });
      expect(denied(r.stdout)).toBe(true);
      expect(logEntries(ws).at(-1)?.error).toBeUndefined();
    }
    // a long command without rm -rf is evaluated as usual (allowed)
    await runHookChild(args, JSON.stringify(promptEvent("long")), { cwd: ws });
    const ok = JSON.stringify(preToolUse("long", `echo ${"a".repeat(40_000)}`));
    const r = await runHookChild([...args, "--fail-closed"], ok, { cwd: ws });
    expect(r.stdout).toBe("");
    expect(logEntries(ws).at(-1)?.error).toBeUndefined();
  }, 90_000);
});
