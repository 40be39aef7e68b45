/**
 * A corpus whose Harbor verifiers name their score differently: most write `rewards.reward`,
 * one task's grader writes a dict of sub-scores with `overall` and no `reward` (the shape of a
 * public task author's multi-criteria grader). The trial records are minimal Harbor
 * `result.json` files written here.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FireConfig, saveConfig } from "../../../src/core/workspace/config.js";
import { loadWorkspace } from "../../../src/core/workspace/load.js";

let ws: string;

async function trial(name: string, rewards: Record<string, number>): Promise<void> {
  const dir = join(ws, "traces", name);
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, "result.json"),
    JSON.stringify({
      task_name: name.split("__")[0],
      trial_name: name,
      agent_info: { name: "claude-code", model_info: { name: "claude-opus-4-7" } },
      verifier_result: { rewards },
      exception_info: null,
    }),
  );
}

beforeEach(async () => {
  ws = await mkdtemp(join(tmpdir(), "fire-reward-key-"));
  await trial("plain-task__a1", { reward: 0 });
  await trial("graded-task__b1", {
    overall: 0.875,
    functional_correctness: 1,
    constraint_satisfaction: 0.5,
  });
  await trial("graded-task__b2", { overall: 1, functional_correctness: 1 });
  await trial("odd-task__c1", { left: 1, right: 0 });
});
afterEach(async () => {
  await rm(ws, { recursive: true, force: true });
});

async function outcomes(rewardKey?: FireConfig["rewardKey"]) {
  await saveConfig(ws, { sources: ["traces/"], ...(rewardKey ? { rewardKey } : {}) });
  const w = await loadWorkspace(ws);
  const by = Object.fromEntries(
    w.attempts.map((a) => [a.id.replace(/-[0-9a-f]{8}$/, ""), [a.outcome, a.reward ?? null]]),
  );
  return { by, errors: w.errors.map((e) => e.format()) };
}

describe("rewardKey: one key, or keys in order of preference", () => {
  it("without it, a dict of sub-scores with no `reward` has no outcome and says why", async () => {
    const { by, errors } = await outcomes();
    expect(by["plain-task__a1"]).toEqual(["fail", 0]);
    expect(by["graded-task__b1"]?.[0]).toBe("unknown");
    expect(errors.some((e) => /'overall'.*none is 'reward'.*rewardKey/.test(e))).toBe(true);
  });

  it("with a list, the first key a trial's dict has scores it", async () => {
    const { by, errors } = await outcomes(["reward", "overall"]);
    expect(by["plain-task__a1"]).toEqual(["fail", 0]);
    expect(by["graded-task__b1"]).toEqual(["fail", 0.875]);
    expect(by["graded-task__b2"]).toEqual(["pass", 1]);
    // a dict with none of the keys is still a problem naming them and its own keys
    expect(by["odd-task__c1"]?.[0]).toBe("unknown");
    expect(errors).toContainEqual(
      expect.stringContaining(
        "verifier_result.rewards has none of 'reward', 'overall' (keys: 'left', 'right')",
      ),
    );
  });

  it("a single key keeps its meaning: a trial without it is a problem, not a guess", async () => {
    const { by } = await outcomes("overall");
    expect(by["graded-task__b1"]).toEqual(["fail", 0.875]);
    expect(by["plain-task__a1"]?.[0]).toBe("unknown");
  });
});
