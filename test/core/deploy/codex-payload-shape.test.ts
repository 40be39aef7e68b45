import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "smol-toml";
import { describe, expect, it } from "vitest";
import { isFireCommand, withFire } from "../../../src/core/deploy/settings.js";
import { REPO_ROOT } from "../../helpers/paths.js";

const DIR = join(REPO_ROOT, "test/fixtures/real-clients/payload-codex");

describe("the Codex payload's managed requirements.toml", () => {
  it("has the shape the real Codex 0.171 ran from /etc/codex/requirements.toml without trust", () => {
    const recorded = parse(readFileSync(join(DIR, "requirements.toml"), "utf8"));
    // the logging command that run used, as recorded there (fire's mark ends it)
    const hooks = recorded.hooks as Record<string, { hooks: { command: string }[] }[]>;
    const command = hooks.Stop?.[0]?.hooks[0]?.command ?? "";
    expect(isFireCommand(command)).toBe(true);
    expect(parse(stringify(withFire({}, command, "codex")))).toEqual(recorded);
    const seen = readFileSync(join(DIR, "hook-events-seen.txt"), "utf8").trim().split("\n");
    const count = (e: string) => seen.filter((l) => l.includes(`"${e}"`)).length;
    expect([
      count("UserPromptSubmit"),
      count("PreToolUse"),
      count("PostToolUse"),
      count("Stop"),
    ]).toEqual([1, 3, 3, 1]);
    expect(readFileSync(join(DIR, "client-stderr.txt"), "utf8")).not.toContain("bypass");
  });
});
