import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HARNESS_TOOLS } from "../../src/core/deploy/tool-filter.js";
import { REPO_ROOT } from "../helpers/paths.js";

/**
 * Counted LIVE in the real clients (Claude Code 2.1.332, Codex 0.171.0, scripted model on
 * loopback, ../shared/realclients, installed as a user installs: no rig hooks, Codex without
 * --dangerously-bypass-hook-trust) by test/real-clients/matcher-starts.sh: one scripted
 * session (two edit-tool calls, three shell calls, one `rm -rf` denied, two stops) run twice
 * per client, with fire's hook installed on a candidates' folder (every tool: matcher "") and
 * on the same candidates frozen (matchers from core/deploy/tool-filter.ts). One hook-log line
 * per hook process start. Re-record: run the script, copy OUTDIR/<client>.json here.
 */
const DIR = join(REPO_ROOT, "test/fixtures/real-clients/matcher-starts");
interface Run {
  matchers: Record<string, string>;
  hookStarts: number;
  startsByEvent: Record<string, number>;
  decisions: string[];
  errors: number;
  toolCalls: string[];
  check: string;
}
const read = (c: string) =>
  JSON.parse(readFileSync(join(DIR, `${c}.json`), "utf8")) as { runs: { all: Run; matchers: Run } };

describe.each(["claude", "codex"] as const)("tool matchers in the real %s", (client) => {
  const { all, matchers } = read(client).runs;
  const edit = HARNESS_TOOLS[client].edit;

  it("the same session ran both times, and the model saw the same deny and stop instruction", () => {
    expect(matchers.toolCalls).toEqual(all.toolCalls);
    expect(all.toolCalls.length).toBe(5);
    expect(all.check).toBe("PASS");
    expect(matchers.check).toBe("PASS");
    expect(all.errors + matchers.errors).toBe(0);
    expect(all.decisions).toEqual(["PreToolUse deny no-rm-rf", "Stop instruct list-before-stop"]);
    expect(matchers.decisions).toEqual(all.decisions);
  });

  it("without matchers every tool event started the hook; with them only the shell's", () => {
    expect(Object.values(all.matchers).every((m) => m === "")).toBe(true);
    expect(Object.values(matchers.matchers).every((m) => m === "Bash")).toBe(true);
    const editStarts = (r: Run) =>
      Object.entries(r.startsByEvent)
        .filter(([k]) => edit.some((t) => k.endsWith(` ${t}`)) || k.endsWith(" Read"))
        .reduce((n, [, v]) => n + v, 0);
    expect(editStarts(all)).toBe(4); // two edit-tool calls, before and after each
    expect(editStarts(matchers)).toBe(0);
    expect(matchers.hookStarts).toBe(all.hookStarts - 4);
    // every other event started the hook exactly as often
    for (const [k, v] of Object.entries(matchers.startsByEvent))
      expect(all.startsByEvent[k]).toBe(v);
  });
});
