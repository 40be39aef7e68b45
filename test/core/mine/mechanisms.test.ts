import { describe, expect, it } from "vitest";
import { FAMILIES } from "../../../src/core/families.js";
import { Label } from "../../../src/core/mine/label.js";
import {
  familyMechanism,
  isMechanismId,
  MECHANISMS,
  normalizeEvidence,
  pathKind,
  signatureKey,
} from "../../../src/core/mine/mechanisms.js";

describe("mechanism registry", () => {
  it("names every family as a mechanism and adds open ones without a family", () => {
    for (const f of FAMILIES) expect(familyMechanism(f).family).toBe(f);
    const open = MECHANISMS.filter((m) => !m.family).map((m) => m.id);
    expect(open).toEqual(
      expect.arrayContaining([
        "artifact-never-written",
        "artifact-wrong-path",
        "deadline-no-deliverable",
        "repeated-tool-error",
        "constraint-unchecked",
        "overwrote-existing-file",
        "task-input-missed",
      ]),
    );
    expect(new Set(MECHANISMS.map((m) => m.id)).size).toBe(MECHANISMS.length);
    expect(isMechanismId("capability_gap")).toBe(false);
  });

  it("normalizes evidence so two runs of one error share a signature, other errors do not", () => {
    const a = normalizeEvidence("Error: ENOENT: no such file /tmp/run-1234/a.txt (code 2)");
    const b = normalizeEvidence("error: ENOENT: no such file /tmp/run-98/a.txt  (code 2)");
    const c = normalizeEvidence("Error: EACCES: permission denied /tmp/run-98/a.txt");
    expect(a).toBe(b);
    expect(a).not.toBe(c);
    expect(pathKind("/workspace/tests/test_x.py")).toBe(".py");
    expect(pathKind("/app/events/")).toBe("dir/");
  });

  it("keys clusters by mechanism, point and signature", () => {
    const base = { interventionPoint: "stop" as const, mechanism: "x" };
    const k1 = signatureKey({
      ...base,
      mechanismId: "artifact-never-written",
      signature: "missing:.md",
    });
    const k2 = signatureKey({
      ...base,
      mechanismId: "artifact-never-written",
      signature: "missing:.txt",
    });
    const k3 = signatureKey({ ...base, family: "latex-final-log" });
    expect(k1).not.toBe(k2);
    expect(k3).toBe("latex-final-log|stop|");
  });

  it("still parses a label cached before mechanisms existed", () => {
    const old = {
      isProceduralLoss: true,
      capabilityEvidence: [],
      preFailureState: null,
      mechanism: "m",
      interventionPoint: "stop",
      exclusion: "none",
      confidence: 0.5,
      rationale: "r",
      attemptId: "a",
      source: "heuristic",
      detectorIds: [],
    };
    expect(Label.safeParse(old).success).toBe(true);
    expect(
      Label.safeParse({
        ...old,
        mechanismId: "repeated-tool-error",
        signature: "s",
        evidenceEvents: [3],
      }).success,
    ).toBe(true);
  });
});
