import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPolicies } from "../../src/core/policy/load.js";
import { replayAttempt } from "../../src/core/policy/replay.js";
import { rolloutExitCode } from "../../src/runtime/codex-exit.js";
import { toEvent } from "../../src/runtime/map-event.js";
import { hookEvents, importSessions, localInput, RECORDED } from "../real-clients/cases.js";
import { tempWorkspace } from "./hook-helpers.js";

/** The Stop stdin of a recorded real-client session (the main agent's last one). */
function stopInput(name: string) {
  const dir = join(RECORDED, name);
  const stops = hookEvents(dir).filter(
    (e) => e.input.hook_event_name === "Stop" && e.input.agent_id === undefined,
  );
  return localInput(dir, stops.at(-1)!.input);
}

/** A policy that instructs at a stop when its condition holds, in the candidate format. */
function stopPolicy(when: Record<string, unknown>) {
  const dir = tempWorkspace();
  const file = join(dir, "p.json");
  writeFileSync(
    file,
    JSON.stringify({
      id: "stop-fields",
      version: 1,
      family: "test",
      title: "stop fields",
      chain: { state: "s", intervention: "i", behavior: "b", verifier: "v" },
      rules: [{ id: "r", at: "stop", when, action: "instruct", message: "m" }],
      behavior: { kind: "prompt" },
    }),
  );
  const { policies, errors } = loadPolicies([file]);
  expect(errors).toEqual([]);
  return policies;
}

describe("Stop's own fields (last_assistant_message, background_tasks)", () => {
  it.each(["claude-fail-probe", "codex-fail-probe"])(
    "%s: the live stop's final message is the one replay reads from the session log",
    async (name) => {
      const input = stopInput(name);
      const live = toEvent(input, rolloutExitCode)!;
      expect(live.kind).toBe("stop");
      expect(live.final).toBe(input.last_assistant_message);
      expect(live.final?.length).toBeGreaterThan(0);
      const attempts = await importSessions(join(RECORDED, name));
      const stop = attempts[0]!.events.filter((e) => e.kind === "stop").at(-1)!;
      expect(stop.final?.trim()).toBe(live.final?.trim());
      // the same condition on it holds in replay, as it holds live
      const word = live
        .final!.trim()
        .split(/\s+/)[0]!
        .replace(/[^A-Za-z]/g, "");
      const r = replayAttempt(stopPolicy({ final: `^${word}` }), attempts[0]!);
      expect(r.firings.some((f) => f.point === "stop" && f.ruleId === "r")).toBe(true);
    },
  );

  it("background tasks: Claude Code's list counted live, unknown in Codex and in replay", async () => {
    const claude = stopInput("claude-fail-probe");
    expect(claude.background_tasks).toEqual([]); // as recorded: nothing left running
    expect(toEvent(claude)!.background).toBe(0);
    const running = {
      ...claude,
      background_tasks: [{ id: "b1", command: "python3 -m http.server" }],
    };
    expect(toEvent(running)!.background).toBe(1);
    expect(toEvent(stopInput("codex-fail-probe"))!.background).toBeUndefined();
    // unknown never satisfies: neither "some" nor "none" running holds on a trace
    const attempts = await importSessions(join(RECORDED, "claude-fail-probe"));
    for (const when of [{ background: { ge: 1 } }, { background: 0 }]) {
      const r = replayAttempt(stopPolicy(when), attempts[0]!);
      expect(r.firings.filter((f) => f.ruleId === "r")).toEqual([]);
    }
  });
});
