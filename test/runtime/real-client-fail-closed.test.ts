import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withFire } from "../../src/core/deploy/settings.js";
import { REPO_ROOT } from "../helpers/paths.js";

/**
 * Evidence recorded with the REAL clients (Claude Code 2.1.332, Codex 0.171.0, scripted model on
 * loopback, ../shared/realclients) by test/real-clients/fail-closed.sh: fire was installed from
 * a copy of dist/ that was deleted before the client started, so the hook command the settings
 * name is missing. The script's one tool call writes marker.txt. Re-record: run that script
 * and copy each case's small files.
 */
const DIR = join(REPO_ROOT, "test/fixtures/real-clients/fail-closed");
const read = (c: string, f: string) => readFileSync(join(DIR, c, f), "utf8");
const toolResult = (c: string) =>
  (JSON.parse(read(c, "tool-result.json")) as { result: string }).result;
type Handler = { command: string; onFailure?: string };
type Settings = { hooks: Record<string, { hooks: Handler[] }[]> };
const handlers = (s: Settings, event: string) => s.hooks[event]?.flatMap((g) => g.hooks) ?? [];

describe("fire hook install --fail-closed, the hook command missing, in the real clients", () => {
  it("claude: fire wrote onFailure block on PreToolUse only, and removed fire before the run", () => {
    expect(read("claude-fail-closed", "pre-client.txt")).toContain(
      "removed the fire the hook runs",
    );
    const s = JSON.parse(read("claude-fail-closed", "installed-settings.json")) as Settings;
    expect(handlers(s, "PreToolUse").map((h) => h.onFailure)).toEqual(["block"]);
    for (const event of ["UserPromptSubmit", "PostToolUse", "Stop"])
      expect(handlers(s, event).map((h) => h.onFailure)).toEqual([undefined]);
    expect(handlers(s, "PreToolUse")[0]?.command).toContain(" hook --fail-closed ");
  });

  it("claude: the tool call was blocked (never ran) and the model was told why", () => {
    expect(read("claude-fail-closed", "marker.txt").trim()).toBe("no");
    expect(toolResult("claude-fail-closed")).toContain('blocking because onFailure is "block"');
  });

  it("claude without --fail-closed (the control): the same missing hook lets the call run", () => {
    const s = JSON.parse(read("claude-default", "installed-settings.json")) as Settings;
    expect(Object.values(s.hooks).flatMap((g) => g.flatMap((x) => x.hooks))).not.toContainEqual(
      expect.objectContaining({ onFailure: expect.anything() }),
    );
    expect(read("claude-default", "marker.txt").trim()).toBe("yes");
    expect(toolResult("claude-default")).toBe("made");
  });

  it("codex 0.171 has no onFailure: the call runs, and install warned so", () => {
    expect(read("codex-fail-closed", "pre-client.txt")).toContain("Codex 0.171 has no onFailure");
    const s = JSON.parse(read("codex-fail-closed", "installed-hooks.json")) as Settings;
    expect(JSON.stringify(s)).not.toContain("onFailure");
    expect(read("codex-fail-closed", "marker.txt").trim()).toBe("yes");
  });

  it("the recorded settings are what install writes today", () => {
    const s = JSON.parse(read("claude-fail-closed", "installed-settings.json")) as Settings;
    const command = handlers(s, "PreToolUse")[0]?.command ?? "";
    expect(withFire({}, command, "claude", { blockOnFailure: true })).toEqual(s);
    expect(withFire({}, command, "codex", { blockOnFailure: true })).toEqual(
      withFire({}, command, "codex"),
    );
    expect(existsSync(join(DIR, "codex-fail-closed", "tool-result.json"))).toBe(true);
  });
});
