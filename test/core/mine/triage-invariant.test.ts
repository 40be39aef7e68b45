import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Label } from "../../../src/core/mine/label.js";
import { triage } from "../../../src/core/mine/triage.js";
import { Attempt, type Outcome } from "../../../src/core/model/attempt.js";

const OUTCOMES: Outcome[] = ["pass", "fail", "error", "timeout", "unknown"];
/** Verifier outputs and tool outputs that trigger (or nearly trigger) the built-in fault checks. */
const VERIFIER_TEXT = [
  "",
  "1 failed, 3 passed",
  "ValueError: LLM judge response did not include a text content block",
  "LLM Judge failed all 3 attempts",
  "grader crashed",
];
const TOOL_OUT = [
  "ok",
  "sh: 1: gh: not found",
  "To get started with GitHub CLI, please run:  gh auth login",
];

const attemptArb = fc.record({
  task: fc.integer({ min: 0, max: 5 }),
  arm: fc.constantFrom("baseline", "policy"),
  outcome: fc.constantFrom(...OUTCOMES),
  acted: fc.boolean(),
  verifier: fc.constantFrom(...VERIFIER_TEXT),
  toolOut: fc.constantFrom(...TOOL_OUT),
  exception: fc.constantFrom(
    undefined,
    "AgentTimeoutError",
    "EnvironmentStartTimeoutError",
    "VerifierTimeoutError",
  ),
  label: fc.constantFrom(undefined, "capability_gap", "no_intervention_point", "none"),
  user: fc.boolean(),
});

function build(specs: fc.infer<typeof attemptArb>[]) {
  const attempts = specs.map((s, i) =>
    Attempt.parse({
      id: `a${i}`,
      source: { format: "fire-jsonl", path: `/x/a${i}.jsonl` },
      taskId: `task-${s.task}`,
      taskText: "Use the `gh` CLI to triage the issues.",
      arm: s.arm,
      outcome: s.outcome,
      ...(s.exception ? { exception: { type: s.exception } } : {}),
      verifierOutput: s.verifier,
      events: s.acted
        ? [
            { index: 0, kind: "prompt", role: "user", input: "go" },
            { index: 1, kind: "tool_call", tool: "Bash", command: "gh issue list", callId: "c" },
            { index: 2, kind: "tool_result", tool: "Bash", output: s.toolOut, callId: "c" },
          ]
        : [],
    }),
  );
  const labels = new Map<string, Label>();
  const user = new Map<string, string>();
  specs.forEach((s, i) => {
    if (s.label)
      labels.set(`a${i}`, {
        attemptId: `a${i}`,
        source: "heuristic",
        detectorIds: [],
        isProceduralLoss: s.label === "none",
        capabilityEvidence: [],
        preFailureState: null,
        mechanism: "m",
        interventionPoint: "none",
        exclusion: s.label as Label["exclusion"],
        confidence: 0.5,
        rationale: "r",
      });
    if (s.user) user.set(`a${i}`, "user says so");
  });
  return { attempts, labels, user };
}

describe("triage k/n invariant", () => {
  it("no exclusion (fault, labeller, user, marker) changes any task's k/n", () => {
    fc.assert(
      fc.property(fc.array(attemptArb, { minLength: 1, maxLength: 30 }), (specs) => {
        const { attempts, labels, user } = build(specs);
        const t = triage(attempts, {
          labels,
          userExcluded: user,
          verifierFaultMarkers: ["grader crashed"],
        });
        const bare = triage(attempts);
        for (const task of t.tasks) {
          const mine = attempts.filter((a) => a.taskId === task.taskId && a.arm === task.arm);
          expect(task.passes).toBe(mine.filter((a) => a.outcome === "pass").length);
          expect(task.n).toBe(mine.filter((a) => a.outcome !== "unknown").length);
          const same = bare.tasks.find((x) => x.taskId === task.taskId && x.arm === task.arm);
          expect([same?.passes, same?.n, same?.status]).toEqual([task.passes, task.n, task.status]);
          // every failed attempt is either in scope or excluded, never both; passes never excluded
          const failed = mine.filter((a) => a.outcome !== "pass").map((a) => a.id);
          expect([...task.failedIds, ...task.excludedIds].sort()).toEqual(failed.sort());
          if (task.n > 0) expect(task.status).not.toBe("unscored");
        }
        for (const e of t.exclusions) {
          expect(e.detail.length).toBeGreaterThan(0);
          expect(e.evidence.length).toBeGreaterThan(0);
          expect(attempts.find((a) => a.id === e.attemptId)?.outcome).not.toBe("pass");
        }
      }),
      { numRuns: 300 },
    );
  });
});
