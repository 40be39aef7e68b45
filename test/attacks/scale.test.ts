import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { writeBigClaudeTrace } from "../../src/bench/big-trace.js";
import { fuzzPatterns } from "../../src/bench/pattern-fuzz.js";
import { runFire } from "../helpers/cli.js";
import { fixture, REPO_ROOT } from "../helpers/paths.js";
import { logEntries } from "../runtime/hook-helpers.js";
import { CLI, preToolUse, promptEvent, rmWorkspace } from "./helpers.js";

/**
 * Issue 27 "held" at scale, in CI sizes; the full sizes (a million fuzzed patterns, a
 * million-event trace, hook time at 20k sessions as a ratio) are in `npm run bench -- attacks`.
 */
describe("attack: scale", () => {
  it("8 000 fuzzed patterns (fixed seed) answer as JavaScript's RegExp does: 0 mismatches", () => {
    const r = fuzzPatterns(8_000, 27);
    expect(r.mismatches).toEqual([]);
    expect(r.mismatched).toBe(0);
    expect(r.compared).toBeGreaterThan(15_000); // most patterns are admitted and compared
    expect(r.refused).toBeLessThan(r.patterns / 2);
  }, 120_000);

  it("20 000 sessions in the state folder: the hook answers without listing it", () => {
    const { ws, args } = rmWorkspace("fire-attack-20k-");
    const state = join(ws, ".fire/state");
    mkdirSync(state, { recursive: true });
    const body = JSON.stringify({ step: 3, policies: {} });
    for (let i = 0; i < 20_000; i++) writeFileSync(join(state, `s${i}.json`), body);
    const listed = join(ws, "listed.json");
    const hook = (event: unknown) =>
      spawnSync(
        process.execPath,
        [
          "--require",
          resolve(REPO_ROOT, "test/attacks/fixtures/count-readdir.cjs"),
          CLI,
          "hook",
          ...args,
        ],
        {
          input: JSON.stringify(event),
          cwd: ws,
          encoding: "utf8",
          // the one-shot call: the --require above counts this process's own listings
          env: {
            ...process.env,
            FIRE_STATE_DIR: "",
            FIRE_TEST_READDIR_LOG: listed,
            FIRE_HOOK_RESIDENT: "0",
          },
          timeout: 60_000,
        },
      );
    hook(promptEvent("s123"));
    const r = hook(preToolUse("s123", "rm -rf /"));
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
    expect(logEntries(ws).map((e) => [e.eventIndex, e.error])).toEqual([
      [3, undefined],
      [4, undefined],
    ]);
    // no scan of the sessions: the state folder is never listed during an event
    const dirs = JSON.parse(readFileSync(listed, "utf8")) as string[];
    expect(dirs.map((d) => resolve(ws, d))).toContain(join(ws, "cands")); // the count works
    expect(dirs.map((d) => resolve(ws, d))).not.toContain(state);
  }, 120_000);

  it("a 10 001-event trace imports whole (a million events: npm run bench -- attacks)", () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-attack-bigtrace-"));
    const trace = join(ws, "big.jsonl");
    writeBigClaudeTrace(fixture("real-clients", "claude-rm-deny", "session.jsonl"), trace, 5_000);
    const imp = runFire(["import", "--json", trace, "-w", ws], { cwd: ws });
    expect(imp.status).toBe(0);
    expect(JSON.parse(imp.stdout)).toMatchObject({ attempts: 1, errors: [] });
    const list = JSON.parse(runFire(["attempts", "--json", "-w", ws], { cwd: ws }).stdout);
    expect(list.map((a: { nEvents: number }) => a.nEvents)).toEqual([10_001]);
  }, 120_000);
});
