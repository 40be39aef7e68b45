import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runDetectors } from "../../../src/core/mine/detectors/index.js";
import {
  announcedAtStop,
  announcedChange,
  openPlanAtStop,
} from "../../../src/core/mine/detectors/open-plan.js";
import { readsAsFinished, truncatedFinalResponse } from "../../../src/core/mine/faults/harness.js";
import { heuristicLabel } from "../../../src/core/mine/heuristic.js";
import type { Attempt, Event } from "../../../src/core/model/attempt.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { collect } from "../ingest/collect.js";

/** Two real SlopCodeBench checkpoints that stopped unfinished (the fixture's README). */
const FIXTURE = resolve(REPO_ROOT, "test/fixtures/checkpoint-run-open-plan");
let attempts: Attempt[];
beforeAll(async () => {
  const got = await collect([FIXTURE]);
  expect(got.errors).toEqual([]);
  attempts = got.attempts;
});
const task = (id: string): Attempt => {
  const a = attempts.find((x) => x.taskId === id);
  if (!a) throw new Error(`no ${id}`);
  return a;
};
const label = (a: Attempt) => heuristicLabel(a, runDetectors(a, { siblings: [] }));
const planCalls = (a: Attempt) =>
  a.events.filter((e) => e.kind === "tool_call" && e.tool === "TodoWrite");

/** The attempt with every TodoWrite's steps marked completed. */
function planDone(a: Attempt): Attempt {
  return {
    ...a,
    events: a.events.map((e) =>
      e.kind === "tool_call" && e.tool === "TodoWrite"
        ? {
            ...e,
            input: (e.input ?? "").replace(
              /"status":"(?:pending|in_progress)"/g,
              '"status":"completed"',
            ),
          }
        : e,
    ),
  };
}

/** The attempt with its final agent message's text replaced. */
function lastWords(a: Attempt, text: string): Attempt {
  const i = a.events.findLastIndex((e) => e.kind === "message" && e.role === "agent");
  return { ...a, events: a.events.map((e, j) => (j === i ? { ...e, input: text } : e)) };
}

describe("a run that stopped right after announcing a change (real Claude Code on GLM-5)", () => {
  it("reads the announcement in the final message and keeps the failure for review", () => {
    const a = task("eve_route_planner/checkpoint_1");
    const said = announcedAtStop(a);
    expect(said?.why).toContain("Let me rewrite this properly:");
    expect(a.events.find((e) => e.index === said?.eventIndex)?.kind).toBe("message");
    const l = label(a);
    expect(l.exclusion).toBe("none");
    expect(l.status).toBe("needs_review");
    expect(l.kind).toBe("policy_addressable");
    expect(l.interventionPoint).toBe("stop");
    expect(l.rationale).toContain("announcement of a change it never made");
    expect(l.evidence[0]?.eventIndex).toBe(said?.eventIndex);
  });

  it("is a capability gap again when the last words hand in and the plan was done", () => {
    // its write was read back, so without the announcement and the open plan nothing says
    // the attempt was unfinished
    const a = planDone(
      lastWords(task("eve_route_planner/checkpoint_1"), "Submitting final result:"),
    );
    expect(announcedAtStop(a)).toBeUndefined();
    expect(openPlanAtStop(a)).toBeUndefined();
    expect(label(a).exclusion).toBe("capability_gap");
  });

  it("does not read an announcement that a tool call followed, nor words that change nothing", () => {
    const a = task("eve_route_planner/checkpoint_1");
    const said = announcedAtStop(a);
    const call = a.events.find((e) => e.kind === "tool_call" && e.tool === "Write") as Event;
    // the same words, with the write they announce made after them
    const made: Attempt = {
      ...a,
      events: [...a.events.filter((e) => e.kind !== "stop"), { ...call, index: 9_000 }],
    };
    expect(said).toBeDefined();
    expect(announcedAtStop(made)).toBeUndefined();
    // "Let me find the actual stargates" announces a look, not a change
    expect(
      announcedAtStop(lastWords(a, "Let me find the actual stargates (which connect systems):")),
    ).toBeUndefined();
  });
});

describe("a run that stopped with its own plan not begun (real Claude Code on GLM-5)", () => {
  it("reads the steps its last TodoWrite left pending and keeps the failure for review", () => {
    const a = task("eve_industry/checkpoint_4");
    expect(
      a.events.some((e) => e.kind === "tool_call" && /^(?:Write|Edit)$/.test(e.tool ?? "")),
    ).toBe(false);
    const open = openPlanAtStop(a);
    expect(open?.eventIndex).toBe(planCalls(a).at(-1)?.index);
    expect(open?.why).toMatch(
      /^the run ended with 7 of 8 step\(s\) of the agent's own plan not begun \(next: "Implement plan command/,
    );
    const l = label(a);
    expect(l.exclusion).toBe("none");
    expect(l.status).toBe("needs_review");
    expect(l.kind).toBe("policy_addressable");
    expect(l.preFailureState?.eventIndex).toBe(open?.eventIndex);
  });

  it("says nothing when the plan's steps were all done or begun", () => {
    const a = planDone(task("eve_industry/checkpoint_4"));
    expect(openPlanAtStop(a)).toBeUndefined();
    expect(label(a).exclusion).toBe("capability_gap");
  });

  it("says nothing of a plan the run worked past without updating it", () => {
    const a = task("eve_industry/checkpoint_4");
    const plan = planCalls(a).at(-1) as Event;
    const read = a.events.find((e) => e.kind === "tool_call" && e.index > plan.index) as Event;
    // eleven more calls after the last update: the plan no longer says where the run ended
    const more: Event[] = Array.from({ length: 11 }, (_, k) => ({ ...read, index: 10_000 + k }));
    const stop = a.events.at(-1) as Event;
    const stale: Attempt = {
      ...a,
      events: [...a.events.slice(0, -1), ...more, { ...stop, index: 20_000 }],
    };
    expect(openPlanAtStop(stale)).toBeUndefined();
  });

  it("ignores a plan tool whose input is not a whole list", () => {
    const a = task("eve_industry/checkpoint_4");
    const odd: Attempt = {
      ...a,
      events: a.events.map((e) =>
        e.kind === "tool_call" && e.tool === "TodoWrite" ? { ...e, input: '{"todo":"next"}' } : e,
      ),
    };
    expect(openPlanAtStop(odd)).toBeUndefined();
  });
});

describe("a final turn the endpoint reported no usage for", () => {
  // the same real run, as an endpoint that meters no final turn would record it
  const unmetered = (a: Attempt): Attempt => ({
    ...a,
    agentEnd: { ...a.agentEnd, promptTokens: 0, outputTokens: 0, meteredTurns: 12, toolCalls: 0 },
  });

  it("is cut off when it ends announcing the change it never made", () => {
    const a = unmetered(task("eve_route_planner/checkpoint_1"));
    expect(a.events.find((e) => e.index === a.agentEnd?.eventIndex)?.input).toMatch(
      /Let me rewrite this properly:$/,
    );
    expect(truncatedFinalResponse(a)?.code).toBe("truncated-model-response");
  });

  it("lost nothing when it reads as a finished report", () => {
    // the closing report of another checkpoint of the same run (etl_pipeline/checkpoint_4),
    // whose final turn the endpoint also reported with 0 prompt and 0 output tokens
    const report =
      "All tests pass. The implementation is complete. Let me provide a summary of the changes:\n\n" +
      "### Error Codes Implemented:\n- `UNKNOWN_DEF` - When definition name is not found\n" +
      "- `RECURSION_FORBIDDEN` - When recursive call is detected\n\n### All Specification Examples Pass:\n" +
      "- Example 1: Basic call with parameters - ✓\n- Example 2: Missing definition - ✓\n" +
      "- Example 3: Direct recursion - ✓";
    expect(readsAsFinished(report)).toBe(true);
    const a = unmetered(lastWords(task("eve_route_planner/checkpoint_1"), report));
    expect(truncatedFinalResponse(a)).toBeUndefined();
    // a report cut mid-list, or one that goes on to announce more, is still cut off
    expect(readsAsFinished(report.slice(0, -22))).toBe(false);
    expect(readsAsFinished(`${report}\n\nNow let me update the README:`)).toBe(false);
    expect(truncatedFinalResponse(unmetered(lastWords(a, report.slice(0, -22))))?.code).toBe(
      "truncated-model-response",
    );
  });
});

describe("the words and plans of other agents", () => {
  it("reads an announcement through file names and typographic apostrophes", () => {
    expect(
      announcedChange("Now I'll create the `http_probe.go` file with IPv6-safe probing:"),
    ).toBe("I'll create the `http_probe.go` file with IPv6-safe probing:");
    expect(announcedChange("I\u2019ll write the parser in `src/parse.ts` next.")).toBeDefined();
    expect(announcedChange("Now I'll create the metacircular evaluator `eval.scm`:")).toBeDefined();
  });

  it("does not read bookkeeping, a hand-in or a check as a change", () => {
    for (const text of [
      "Let me build the project to verify:",
      "Let me update the todo list:",
      "Let me create a summary of the changes:",
      "Let me find the actual stargates (which connect systems):",
      "All done. I updated the parser and the tests pass.",
    ])
      expect(announcedChange(text)).toBeUndefined();
  });

  it("reads a finished report only where it claims the work done and ends finished", () => {
    expect(readsAsFinished("All tests pass. The implementation is complete.")).toBe(true);
    expect(readsAsFinished("The fix is done:\n- Example 1 \u2714\uFE0F")).toBe(true);
    expect(readsAsFinished("The implementation is complete. Changes:\n- `UNKNOWN_DEF`")).toBe(
      false,
    );
    expect(readsAsFinished("The implementation is complete:\n\n```")).toBe(false);
    expect(readsAsFinished("Not all tests pass.")).toBe(false);
    expect(readsAsFinished("The exploration is done. Next I need to write the parser.")).toBe(
      false,
    );
  });

  it("reads the plans of Codex CLI, Gemini CLI and OpenHands as it reads TodoWrite's", () => {
    const a = task("eve_industry/checkpoint_4");
    const plan = planCalls(a).at(-1) as Event;
    const as = (tool: string, input: unknown): Attempt => ({
      ...a,
      events: a.events.map((e) =>
        e.index === plan.index ? { ...e, tool, input: JSON.stringify(input) } : e,
      ),
    });
    const codex = as("update_plan", {
      plan: [
        { step: "Read the tables", status: "completed" },
        { step: "Write the plan command", status: "pending" },
      ],
    });
    expect(openPlanAtStop(codex)?.why).toContain('(next: "Write the plan command")');
    const gemini = as("write_todos", {
      todos: [{ description: "Write the plan command", status: "pending" }],
    });
    expect(openPlanAtStop(gemini)?.why).toContain("1 of 1 step(s)");
    // OpenHands leaves a new task's status out: not begun
    const openhands = as("task_tracker", {
      command: "plan",
      task_list: [{ title: "Write the plan command" }, { title: "Read", status: "done" }],
    });
    expect(openPlanAtStop(openhands)?.why).toContain("1 of 2 step(s)");
    const done = as("update_plan", { plan: [{ step: "Write it", status: "completed" }] });
    expect(openPlanAtStop(done)).toBeUndefined();
  });
});
