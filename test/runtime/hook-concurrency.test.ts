import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/paths.js";
import { residentSettled } from "../helpers/resident.js";
import {
  clientEvents,
  hook,
  logEntries,
  PORTFOLIO,
  stateOf,
  tempWorkspace,
} from "./hook-helpers.js";

function spawnHook(ws: string, input: string): Promise<{ code: number | null; stdout: string }> {
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      [
        resolve(REPO_ROOT, "dist/cli/fire.cjs"),
        "hook",
        "--portfolio",
        PORTFOLIO,
        "--workspace",
        ws,
      ],
      { cwd: ws, env: { ...process.env, FIRE_STATE_DIR: "" } },
    );
    let stdout = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.on("error", fail);
    child.on("close", (code) => {
      residentSettled(process.env);
      done({ code, stdout });
    });
    child.stdin.end(input);
  });
}

describe("fire hook under concurrency", () => {
  it("50 concurrent hook processes on one session lose no state update", async () => {
    const ws = tempWorkspace();
    const events = clientEvents("codex-rm-deny");
    const session = events[0]?.session_id as string;
    expect(hook(ws, events[1]).status).toBe(0); // the prompt: task text known, eligible
    const call = JSON.stringify(events[2]); // PreToolUse `mkdir -p build …`: counts a call
    const results = await Promise.all(Array.from({ length: 50 }, () => spawnHook(ws, call)));
    expect(results.map((r) => r.code)).toEqual(Array(50).fill(0));
    expect(results.every((r) => r.stdout === "")).toBe(true);

    const state = stateOf(ws, session) as {
      step: number;
      policies: Record<string, { counters: Record<string, number> }>;
    };
    expect(state.step).toBe(51);
    expect(state.policies["test.rm-guard@1"]?.counters.calls).toBe(50);
    const log = logEntries(ws);
    expect(log).toHaveLength(51);
    expect(log.every((l) => l.error === undefined)).toBe(true);
    const indexes = log.map((l) => l.eventIndex).sort((a, b) => (a ?? 0) - (b ?? 0));
    expect(indexes).toEqual(Array.from({ length: 51 }, (_, i) => i));
  });
});
