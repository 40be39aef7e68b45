import { describe, expect, it } from "vitest";
import {
  HOOK_OPTIONS,
  hookArgWords,
  PAYLOAD_HOOK_OPTIONS,
  readHookArgs,
} from "../../../src/core/deploy/hook-options.js";
import { hookCommand, isFireCommand, shellWords } from "../../../src/core/deploy/settings.js";

describe("one definition of the hook's options", () => {
  it("an installed command's words read back, with the same options, to what was written", () => {
    const cmd = hookCommand({
      node: "/usr/bin/node",
      cliPath: "/opt/fire/dist/cli/main.js",
      portfolio: "/w/portfolios/p",
      workspace: "/w",
      log: "/w/.fire/hook.jsonl",
      failClosed: true,
    });
    const words = shellWords(cmd)!;
    const args = words.slice(3, words.indexOf("#"));
    expect(readHookArgs(args, HOOK_OPTIONS)).toEqual({
      ok: true,
      values: {
        "fail-closed": true,
        observe: false,
        portfolio: "/w/portfolios/p",
        workspace: "/w",
        log: "/w/.fire/hook.jsonl",
      },
    });
    // the same command without fire's mark (an older install) is still fire's; a foreign flag is not
    const unmarked = cmd.slice(0, cmd.indexOf(" #"));
    expect(isFireCommand(unmarked)).toBe(true);
    expect(isFireCommand(`${unmarked} --state-dir /tmp/s`)).toBe(true);
    expect(isFireCommand(`${unmarked} --verbose`)).toBe(false);
  });

  it("payload words round-trip; a name outside the options is refused when writing", () => {
    const words = hookArgWords(PAYLOAD_HOOK_OPTIONS, { payload: "/p", sha256: "a".repeat(64) });
    expect(readHookArgs(words, PAYLOAD_HOOK_OPTIONS).values).toMatchObject({
      payload: "/p",
      sha256: "a".repeat(64),
    });
    expect(readHookArgs(words, HOOK_OPTIONS).ok).toBe(false);
    expect(() => hookArgWords(HOOK_OPTIONS, { sha256: "x" } as never)).toThrow(/--sha256/);
  });
});
