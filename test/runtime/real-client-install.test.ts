import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { codexHookHash, eventKeyLabel } from "../../src/core/deploy/codex-trust.js";
import { parseHookLog } from "../../src/core/hook-log.js";
import { REPO_ROOT } from "../helpers/paths.js";

/**
 * Evidence recorded with the REAL clients (Claude Code 2.1.332, Codex 0.171.0, scripted model on
 * loopback, ../shared/realclients) by test/real-clients/install-acts.sh: the client ran only
 * what `fire hook install` wrote (RC_HOOKS=none; Codex without --dangerously-bypass-hook-trust),
 * on the rig's rm-deny-stop script. Re-record: run that script, copy each case's small files.
 */
const DIR = join(REPO_ROOT, "test/fixtures/real-clients/install");
const CASES = ["claude-user", "claude-project", "codex-user", "codex-project"];
const read = (c: string, f: string) => readFileSync(join(DIR, c, f), "utf8");

describe.each(CASES)("the installed hook acts in the real client: %s", (name) => {
  const client = name.split("-")[0] as "claude" | "codex";

  it("was installed by fire, and fire hook doctor said it would run, before the client started", () => {
    const pre = read(name, "pre-client.txt");
    expect(pre).toMatch(new RegExp(`^installed: fire hook for ${client} in `));
    expect(pre).toContain(`the fire hook for ${client} will run`);
    expect(pre).not.toContain("PROBLEM");
  });

  it("denied the rm -rf and instructed at Stop, and the model saw both", () => {
    const log = parseHookLog(read(name, "fire-hook-log.jsonl"), "fire-hook-log.jsonl");
    expect(log.errors).toEqual([]);
    expect(log.entries.every((e) => e.harness === client && e.error === undefined)).toBe(true);
    const deny = log.entries.find((e) => e.verdict.action === "deny");
    expect(deny?.command).toBe("rm -rf build");
    expect(deny?.firings.map((f) => f.ruleId)).toEqual(["no-rm-rf"]);
    const stop = log.entries.find((e) => e.event === "Stop" && e.firings.length > 0);
    expect(stop?.firings.map((f) => f.ruleId)).toEqual(["list-before-stop"]);
    // the rig's own summary: every scripted turn's expectation (deny text, stop text) was met
    const check = read(name, "check.txt");
    expect(check).toContain("PASS");
    expect(check).not.toContain("expect=MISSING");
  });
});

describe("Codex accepted fire's persisted hook trust", () => {
  it.each(["codex-user", "codex-project"])(
    "%s: each trusted hash is the one fire computes",
    (name) => {
      const files = readdirSync(join(DIR, name));
      expect(files).toContain("installed-hooks.json");
      const hooks = JSON.parse(read(name, "installed-hooks.json")) as {
        hooks: Record<
          string,
          { matcher?: string; hooks: { command: string; timeout?: number }[] }[]
        >;
      };
      const config = read(name, "installed-config.toml");
      const hooksPath = /\[hooks\.state\."([^"]+):pre_tool_use:0:0"\]/.exec(config)?.[1];
      expect(hooksPath).toMatch(/hooks\.json$/);
      let n = 0;
      for (const [event, groups] of Object.entries(hooks.hooks)) {
        const g = groups[0];
        const h = g?.hooks[0];
        if (!h) continue;
        const key = `${hooksPath}:${eventKeyLabel(event)}:0:0`;
        const hash = codexHookHash(event, g.matcher, h);
        expect(config).toContain(`[hooks.state.${JSON.stringify(key)}]\ntrusted_hash = "${hash}"`);
        n++;
      }
      expect(n).toBe(4);
      if (name === "codex-project")
        expect(config).toMatch(/\[projects\."[^"]+"\]\ntrust_level = "trusted"/);
    },
  );

  it("has the recorded evidence for every case", () => {
    for (const c of CASES) expect(existsSync(join(DIR, c, "fire-hook-log.jsonl"))).toBe(true);
  });
});
