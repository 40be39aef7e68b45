import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDetectorsAll } from "../../../src/core/mine/detectors/index.js";
import type { DetectorHit } from "../../../src/core/mine/detectors/types.js";
import { confidenceOf, heuristicLabel } from "../../../src/core/mine/heuristic.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import type { Workspace } from "../../../src/core/workspace/load.js";
import { attemptByPrefix, loadDemo, removeTempWorkspaces } from "./demo-workspace.js";

afterAll(removeTempWorkspaces);

/**
 * Precision first: a mechanism is named only when two independent kinds of evidence agree
 * (docs/mining.md "Evidence kinds and strength"). Each case takes a real demo attempt and removes or
 * moves exactly one kind of evidence.
 */
let ws: Workspace;
let hits: Map<string, DetectorHit[]>;
beforeAll(async () => {
  ws = await loadDemo();
  hits = runDetectorsAll(ws.attempts);
});

const at = (prefix: string): Attempt => attemptByPrefix(ws.attempts, prefix);
const hitsOf = (a: Attempt): DetectorHit[] => hits.get(a.id) ?? [];
const without = (a: Attempt, ...ids: string[]): DetectorHit[] =>
  hitsOf(a).filter((h) => !ids.includes(h.detectorId));

describe("evidence strength decides naming", () => {
  it("a working state reached, then destroyed by a tool call: named; without the success, for review", () => {
    const a = at("blue-green-release__whkxKSa");
    const named = heuristicLabel(a, hitsOf(a));
    expect(named.status).toBe("named");
    expect(named.mechanismId).toBe("deployment-preservation");
    expect(named.kind).toBe("procedural_loss");
    const cap = named.evidence?.find((e) => e.claim === "capability");
    const state = named.evidence?.find((e) => e.claim === "state" && e.from === "event");
    expect(cap?.eventIndex).toBeLessThan(state?.eventIndex ?? -1);
    expect(named.confidence).toBe(confidenceOf(2));

    const alone = heuristicLabel(a, without(a, "capability.earlier-success"));
    expect(alone.status).toBe("needs_review");
    expect(alone.mechanismId).toBeUndefined();
    expect(alone.kind).toBe("policy_addressable");
    expect(alone.suspected).toEqual([{ mechanismId: "deployment-preservation", strength: 1 }]);
  });

  it("an earlier passing check does not corroborate a stop mechanism; a passing sibling does", () => {
    const a = at("incident-report-json__yVTH13y");
    const all = hitsOf(a);
    const named = heuristicLabel(a, all);
    // trace (no check after the last write) + the sibling's decisive difference + a passing sibling
    expect(named.mechanismId).toBe("stop-without-check");
    expect(named.confidence).toBe(confidenceOf(3));
    expect(named.evidence?.filter((e) => e.from === "sibling")).toHaveLength(2);
    // the same stop with only an earlier check of the agent's own that passed
    const trace = without(a, "capability.passing-sibling", "sibling.decisive-difference");
    const first = a.events.find((e) => e.kind === "tool_call");
    const ownCheck: DetectorHit = {
      detectorId: "capability.earlier-success",
      eventIndices: [first?.index ?? 0],
      reason: "test run succeeded",
    };
    const weak = heuristicLabel(a, [ownCheck, ...trace]);
    expect(weak.status).toBe("needs_review");
    expect(weak.kind).toBe("procedural_loss");
    expect(weak.suspected?.[0]).toEqual({ mechanismId: "stop-without-check", strength: 1 });
    // a workspace that accepts trace-only evidence names it
    expect(heuristicLabel(a, [ownCheck, ...trace], [], { nameThreshold: 1 }).mechanismId).toBe(
      "stop-without-check",
    );
  });

  it("with no mechanism at all, a passing sibling keeps the failure for review; a build alone does not", () => {
    const a = at("serve-static-docs__hAXff60");
    const capOnly = hitsOf(a).filter((h) => h.detectorId.startsWith("capability."));
    const review = heuristicLabel(a, capOnly);
    expect(review.status).toBe("needs_review");
    expect(review.exclusion).toBe("none");
    expect(review.evidence?.some((e) => e.from === "sibling")).toBe(true);
    const stop = a.events.at(-1)?.index ?? 0;
    const own = (reason: string): DetectorHit => ({
      detectorId: "capability.earlier-success",
      eventIndices: [stop],
      reason,
    });
    // the agent's own passing test or probe, and still the verifier failed: not shown to be
    // a gap (the working state was lost, or the check did not discriminate), so for review
    for (const reason of [
      "probe succeeded: curl -s localhost:8080",
      "test run succeeded: pytest -q",
    ]) {
      const l = heuristicLabel(a, [own(reason)]);
      expect(l.status).toBe("needs_review");
      expect(l.rationale).toContain("the agent's own check passed");
    }
    // a build that succeeded shows less: with nothing else, a capability gap
    expect(heuristicLabel(a, [own("build succeeded: make")]).exclusion).toBe("capability_gap");
    expect(heuristicLabel(a, []).exclusion).toBe("capability_gap");
  });

  it("no mechanism, but the run stalled (time limit, unchanged retry loop): for review, not a capability gap", () => {
    const a = at("serve-static-docs__hAXff60");
    const capOnly = hitsOf(a).filter((h) => h.detectorId.startsWith("capability."));
    const noSibling = capOnly.filter(
      (h) =>
        h.detectorId !== "capability.passing-sibling" &&
        !/^(?:probe|test run) succeeded/.test(h.reason),
    );
    expect(heuristicLabel(a, noSibling).exclusion).toBe("capability_gap");
    const stop = a.events.at(-1)?.index ?? 0;
    for (const [detectorId, reason] of [
      ["run.timeout", "exception AgentTimeoutError"],
      ["loop.repeated-failure", "the same failing call 4 times"],
    ] as const) {
      const l = heuristicLabel(a, [...noSibling, { detectorId, eventIndices: [stop], reason }]);
      expect(l.status).toBe("needs_review");
      expect(l.exclusion).toBe("none");
      // in-trace capability evidence makes it the procedural kind; without, policy-addressable
      expect(l.kind).toBe(noSibling.length > 0 ? "procedural_loss" : "policy_addressable");
      expect(l.rationale).toContain("not a capability gap");
      expect(l.evidence?.some((e) => e.claim === "addressable" && e.eventIndex === stop)).toBe(
        true,
      );
    }
    // an agent that said it gave up, with nothing else, is still excluded
    const gaveUp = heuristicLabel(a, [
      ...noSibling,
      { detectorId: "agent.gave-up", eventIndices: [stop], reason: "I cannot do this" },
    ]);
    expect(gaveUp.exclusion).toBe("capability_gap");
  });

  it("a run the harness ended did not stop: stop-time hits read as the deadline's, or as nothing", () => {
    const a = at("incident-report-json__yVTH13y");
    expect(heuristicLabel(a, hitsOf(a)).mechanismId).toBe("stop-without-check");
    const timedOut: Attempt = {
      ...a,
      outcome: "timeout",
      exception: { type: "AgentTimeoutError", message: "timed out" },
    };
    const t = heuristicLabel(timedOut, hitsOf(a));
    const ids = [t.mechanismId, ...(t.suspected ?? []).map((s) => s.mechanismId)];
    expect(ids).not.toContain("stop-without-check");
    expect(ids).toContain("deadline-no-deliverable");
    // the time limit is why the stop reads as the deadline: it adds no second kind
    expect(t.evidence?.some((e) => e.from === "result")).toBe(false);
    const crashed: Attempt = { ...a, exception: { type: "RuntimeError", message: "harness" } };
    const c = heuristicLabel(crashed, hitsOf(a));
    expect(c.mechanismId).not.toBe("stop-without-check");
    expect((c.suspected ?? []).map((s) => s.mechanismId)).not.toContain("stop-without-check");
  });

  it("a service mechanism needs the verifier to show nothing answered; other failures contradict it", () => {
    const a = at("flask-kv-store-api__P4ckhcq");
    const named = heuristicLabel(a, hitsOf(a));
    expect(named.mechanismId).toBe("service-persistence");
    expect(
      named.evidence?.some((e) => e.from === "verifier" && /Max retries/.test(e.excerpt)),
    ).toBe(true);
    const answered: Attempt = {
      ...a,
      verifierOutput: [
        "=================================== FAILURES ===================================",
        "_________________________________ test_put_get _________________________________",
        "E   AssertionError: expected 200, got 404",
        "=========================== short test summary info ============================",
        "FAILED /tests/test_api.py::test_put_get",
        "========================= 1 failed, 0 passed in 0.84s =========================",
      ].join("\n"),
    };
    const l = heuristicLabel(answered, hitsOf(a));
    expect(l.mechanismId).not.toBe("service-persistence");
    // contradicted, not weakened: it is no candidate, not even a suspected one for review
    const ids = (l.suspected ?? []).map((s) => s.mechanismId);
    expect(ids).not.toContain("service-persistence");
  });
});
