import { createRequire } from "node:module";
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

describe("the hook's own option parser", () => {
  const { parseArgs } = createRequire(import.meta.url)("node:util") as typeof import("node:util");
  const cases: string[][] = [
    [],
    ["--portfolio", "/p", "--fail-closed"],
    ["--log=/l", "--observe", "--state-dir", "/s"],
    ["--sha256", "abc", "--payload", "/d"],
    ["--bogus"],
    ["--observe=yes"],
    ["--log"],
    ["--log", "--observe"],
    ["stray"],
    ["-x"],
    ["--", "rest"],
    ["--portfolio", "/a", "--portfolio", "/b"],
    ["--constructor", "x"],
  ];
  it.each(cases)(
    "reads %j as node:util parseArgs does (values, and whether it is an error)",
    (...words) => {
      for (const options of [HOOK_OPTIONS, PAYLOAD_HOOK_OPTIONS]) {
        let strict: Record<string, unknown> | undefined;
        try {
          strict = parseArgs({ args: words, options, strict: true }).values;
        } catch {
          strict = undefined;
        }
        const r = readHookArgs(words, options);
        expect(r.ok).toBe(strict !== undefined);
        if (strict) expect(r.values).toEqual({ ...strict });
      }
    },
  );
});
