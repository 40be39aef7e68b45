import { describe, expect, it } from "vitest";
import {
  agentDurationS,
  agentStartedAt,
  pickReward,
} from "../../../src/core/ingest/harbor-outcome.js";
import type { HarborTrialResult } from "../../../src/core/ingest/harbor-schema.js";

describe("a Harbor trial's reward and agent time", () => {
  it("takes the configured key, else `reward`, else the only key, else names the keys", () => {
    expect(pickReward({ reward: 0.5, other: 1 }, undefined)).toEqual({ reward: 0.5 });
    expect(pickReward({ score: 1 }, undefined)).toEqual({ reward: 1 });
    expect(pickReward({ a: 1, b: 0 }, "b")).toEqual({ reward: 0 });
    expect(pickReward({ a: 1, b: 0 }, undefined)).toEqual({
      problem:
        "verifier_result.rewards has 2 keys ('a', 'b') and none is 'reward': set \"rewardKey\" in fire.config.json to the one that scores the task",
    });
    expect(pickReward({ a: 1 }, "b").problem).toBe(
      "verifier_result.rewards has no 'b' (keys: 'a'); check \"rewardKey\" in fire.config.json",
    );
    expect(pickReward(null, undefined)).toEqual({});
  });

  it("times the agent's own execution, summed over steps, else the whole trial", () => {
    const t = (a: string, b: string) => ({ started_at: a, finished_at: b });
    const base = {
      task_name: "t",
      trial_name: "t__1",
      ...t("2026-01-01T00:00:00Z", "2026-01-01T00:10:00Z"),
    };
    expect(
      agentDurationS({
        ...base,
        agent_execution: t("2026-01-01T00:01:00Z", "2026-01-01T00:03:00Z"),
      } as HarborTrialResult),
    ).toBe(120);
    const steps = [
      { step_name: "a", agent_execution: t("2026-01-01T00:01:00Z", "2026-01-01T00:02:00Z") },
      { step_name: "b", agent_execution: t("2026-01-01T00:05:00Z", "2026-01-01T00:05:30Z") },
    ];
    expect(agentDurationS({ ...base, step_results: steps } as HarborTrialResult)).toBe(90);
    expect(agentDurationS(base as HarborTrialResult)).toBe(600);
  });

  it("starts the agent's clock where its time is measured: its own, the first step's, the trial's", () => {
    const t = (a: string, b: string | null) => ({ started_at: a, finished_at: b });
    const base = {
      task_name: "t",
      trial_name: "t__1",
      ...t("2026-01-01T00:00:00Z", "2026-01-01T00:10:00Z"),
    };
    const own = t("2026-01-01T00:01:00Z", "2026-01-01T00:03:00Z");
    expect(agentStartedAt({ ...base, agent_execution: own } as HarborTrialResult)).toBe(
      "2026-01-01T00:01:00Z",
    );
    // a multi-step trial keeps its agent's timing per step (agent_execution null): setup is
    // not the agent's time
    const steps = [
      { step_name: "a", agent_execution: t("2026-01-01T00:02:00Z", "2026-01-01T00:03:00Z") },
      { step_name: "b", agent_execution: t("2026-01-01T00:05:00Z", "2026-01-01T00:05:30Z") },
    ];
    expect(
      agentStartedAt({ ...base, agent_execution: null, step_results: steps } as HarborTrialResult),
    ).toBe("2026-01-01T00:02:00Z");
    // a step without its end, or an agent that never finished: the trial's own start
    const open = [steps[0], { step_name: "b", agent_execution: t("2026-01-01T00:05:00Z", null) }];
    expect(agentStartedAt({ ...base, step_results: open } as HarborTrialResult)).toBe(
      "2026-01-01T00:00:00Z",
    );
    expect(
      agentStartedAt({
        ...base,
        agent_execution: t("2026-01-01T00:01:00Z", null),
      } as HarborTrialResult),
    ).toBe("2026-01-01T00:00:00Z");
  });
});
