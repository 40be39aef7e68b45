import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Label } from "../../../src/core/mine/label.js";
import { attemptMarkers, siblingsOf } from "../../../src/core/mine/markers.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { loadPolicies } from "../../../src/core/policy/load.js";
import { loadWorkspace } from "../../../src/core/workspace/load.js";
import { REPO_ROOT } from "../../helpers/paths.js";

const ID = "serve-static-docs__hAXff60-0103688c";
const REF = loadPolicies([
  join(REPO_ROOT, "candidates/reference/service-persistence.yaml"),
]).policies;
let attempts: Attempt[];
let attempt: Attempt;
beforeAll(async () => {
  attempts = (await loadWorkspace(REPO_ROOT)).attempts;
  attempt = attempts.find((a) => a.id === ID)!;
});

describe("attemptMarkers", () => {
  it("siblings are the other attempts at the same task", () => {
    const sib = siblingsOf(attempt, attempts);
    expect(sib.length).toBeGreaterThan(0);
    expect(sib.every((a) => a.taskId === "serve-static-docs" && a.id !== ID)).toBe(true);
  });

  it("marks the attached launch (detector), the earlier success (capability) and the firing", () => {
    const m = attemptMarkers(attempt, siblingsOf(attempt, attempts), undefined, REF);
    const at = (i: number) => m.filter((x) => x.eventIndex === i);
    // the attached launch, and the passing sibling's decisive difference at the same launch
    expect(at(14).map((x) => x.kind)).toEqual(["detector", "detector"]);
    expect(at(14).map((x) => x.text.split(":")[0])).toEqual([
      "sibling.decisive-difference",
      "service.attached-launch",
    ]);
    expect(at(17)[0]?.kind).toBe("capability");
    expect(at(17)[0]?.text).toMatch(/^capability\.earlier-success: /);
    const fires = m.filter((x) => x.kind === "fires");
    expect(fires.length).toBe(1);
    expect(fires[0]!.text).toMatch(/^ref-service-persistence \S+ \S+: /);
    expect(attempt.events[fires[0]!.eventIndex]?.kind).toBe("stop"); // fires at the stop
    expect(m.map((x) => x.eventIndex)).toEqual(
      [...m.map((x) => x.eventIndex)].sort((a, b) => a - b),
    );
  });

  it("adds the label's capability evidence and pre-failure state; no policies, no firings", () => {
    const label = {
      capabilityEvidence: [{ eventIndex: 3, why: "ran the server once" }],
      preFailureState: { eventIndex: 20, description: "server left attached" },
    } as unknown as Label;
    const m = attemptMarkers(attempt, [], label, []);
    expect(m).toContainEqual({ eventIndex: 3, kind: "capability", text: "ran the server once" });
    expect(m).toContainEqual({ eventIndex: 20, kind: "pre-failure", text: "server left attached" });
    expect(m.some((x) => x.kind === "fires")).toBe(false);
  });
});
