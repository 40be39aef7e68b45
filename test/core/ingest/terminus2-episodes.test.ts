import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { terminus2Reply } from "../../../src/core/ingest/terminus-episodes.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { collect } from "./collect.js";

/**
 * Terminus 2's own per-episode logs (`episode-N/{prompt.txt,response.txt}`), read when no
 * trajectory kept the actions. The fixtures are two real Harbor trials, unmodified (see the
 * folder's README); each also has Harbor's ATIF trajectory of the same run, so the episodes
 * are checked against a second, independent record of what the agent typed.
 */
const FIXTURES = join(REPO_ROOT, "test/fixtures/harbor-terminus2-episodes");
const TRIALS = ["prove-plus-comm__NJZysQk", "winning-avg-corewars__8uBSAJS"];
const tmp = mkdtempSync(join(tmpdir(), "fire-terminus2-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The trial copied without its trajectory: only the episodes can say what was typed. */
function withoutTrajectory(trial: string): string {
  const dir = join(tmp, "no-atif", trial);
  cpSync(join(FIXTURES, trial), dir, {
    recursive: true,
    filter: (src) => !src.endsWith("trajectory.json"),
  });
  return dir;
}

const calls = (a: Attempt | undefined) =>
  (a?.events ?? []).filter((e) => e.kind === "tool_call" && e.input !== "{}");
const keystrokes = (a: Attempt | undefined) =>
  calls(a).map((e) => (JSON.parse(e.input ?? "{}") as { keystrokes?: string }).keystrokes);

describe("a Harbor Terminus 2 trial without its trajectory", () => {
  for (const trial of TRIALS) {
    it(`reads what ${trial.split("__")[0]} typed from its episodes, as the trajectory has it`, async () => {
      const atif = await collect([join(FIXTURES, trial)]);
      const eps = await collect([withoutTrajectory(trial)]);
      expect(atif.errors).toEqual([]);
      expect(eps.errors).toEqual([]);
      const [a, b] = [atif.attempts[0], eps.attempts[0]];
      expect(keystrokes(a).length).toBeGreaterThan(3);
      expect(keystrokes(b)).toEqual(keystrokes(a));
      expect(b?.taskText).toBe(a?.taskText);
      expect(b?.outcome).toBe(a?.outcome);
      // every command's screen comes back as a result, and the agent's declared end is a stop
      const results = b?.events.filter((e) => e.kind === "tool_result") ?? [];
      expect(results.length).toBeGreaterThan(0);
      expect(b?.events.at(-1)?.kind).toBe("stop");
    });
  }

  it("runs nothing for a reply the agent reported unparseable", async () => {
    const trial = "winning-avg-corewars__8uBSAJS";
    const next = readFileSync(join(FIXTURES, trial, "agent/episode-1/prompt.txt"), "utf8");
    expect(next).toMatch(/^Previous response had parsing errors:/);
    const dir = withoutTrajectory(trial);
    // the real reply is broken JSON; a well-formed one the agent still refused (its parser
    // asks for more than fire's) must run nothing either: the next prompt is what decides
    writeFileSync(
      join(dir, "agent/episode-0/response.txt"),
      '{"analysis": "a", "commands": [{"keystrokes": "ls\\n", "duration": 0.1}]}',
    );
    expect(
      terminus2Reply(readFileSync(join(dir, "agent/episode-0/response.txt"), "utf8")),
    ).toBeDefined();
    const got = await collect([dir]);
    const ids = calls(got.attempts[0]).map((e) => e.callId);
    expect(ids.some((id) => id?.startsWith("episode-0/"))).toBe(false);
    expect(ids.some((id) => id?.startsWith("episode-1/"))).toBe(true);
  });

  it("reads the screen a command left from the next prompt, without Terminus's wrapping", async () => {
    const got = await collect([withoutTrajectory("prove-plus-comm__NJZysQk")]);
    const out = got.attempts[0]?.events.find((e) => e.kind === "tool_result")?.output ?? "";
    expect(out).not.toMatch(/New Terminal Output:|Current Terminal Screen:/);
    expect(out).not.toMatch(/Are you sure you want to mark the task as complete/);
    expect(out.length).toBeGreaterThan(0);
  });
});

describe("a Terminus 2 reply", () => {
  it("is the JSON object after the model's prose", () => {
    const text = readFileSync(
      join(FIXTURES, "prove-plus-comm__NJZysQk/agent/episode-0/response.txt"),
      "utf8",
    );
    expect(text).toMatch(/^[A-Z][^{]*\{/);
    const r = terminus2Reply(text);
    expect(r?.commands?.length).toBeGreaterThan(0);
    expect(r?.complete).toBe(false);
  });

  it("is none when no object holds commands or a completion", () => {
    expect(terminus2Reply("I will run {ls} next.")).toBeUndefined();
    expect(terminus2Reply('{"analysis": "x", "plan": "y"')).toBeUndefined();
    expect(
      terminus2Reply('prose { not json } then {"commands": [], "task_complete": "true"}'),
    ).toEqual({ commands: [], complete: true });
  });
});

describe("a Terminal-Bench 1 trial of Terminus 2", () => {
  // TB1's harness writes the same episode files under `agent-logs/` (terminal_bench's
  // terminus_2 agent: `episode-N/{debug.json,prompt.txt,response.txt}`). No TB1 run of it was
  // available: this trial is the hand-made TB1 fixture's record with a real Terminus 2 run's
  // episodes placed where TB1 keeps them.
  it("reads the episodes' commands and screens", async () => {
    const src = join(REPO_ROOT, "test/fixtures/tb1/runs/2025-06-14__09-30-00");
    const run = join(tmp, "tb1", "2025-06-14__09-30-00");
    const trialName = "hello-world.1-of-2.2025-06-14__09-30-00";
    const dir = join(run, "hello-world", trialName);
    mkdirSync(dir, { recursive: true });
    cpSync(join(src, "run_metadata.json"), join(run, "run_metadata.json"));
    cpSync(join(src, "results.json"), join(run, "results.json"));
    const result = JSON.parse(
      readFileSync(join(src, "hello-world", trialName, "results.json"), "utf8"),
    );
    writeFileSync(join(dir, "results.json"), JSON.stringify({ ...result, is_resolved: false }));
    cpSync(join(FIXTURES, "prove-plus-comm__NJZysQk/agent"), join(dir, "agent-logs"), {
      recursive: true,
      filter: (s) => !s.endsWith("trajectory.json") && !s.endsWith(".pane"),
    });
    const got = await collect([run]);
    const a = got.attempts.find((x) => x.source.path.includes(trialName));
    const harbor = await collect([join(FIXTURES, "prove-plus-comm__NJZysQk")]);
    expect(keystrokes(a)).toEqual(keystrokes(harbor.attempts[0]));
    expect(a?.events.some((e) => e.kind === "tool_result")).toBe(true);
  });
});
