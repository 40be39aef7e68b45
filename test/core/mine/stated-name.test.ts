import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runDetectors } from "../../../src/core/mine/detectors/index.js";
import { lackedNames } from "../../../src/core/mine/detectors/stated-name.js";
import { heuristicLabel } from "../../../src/core/mine/heuristic.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { collect } from "../ingest/collect.js";

/**
 * A real Terminus-2 trial (test/fixtures/harbor-terminus2-name/README.md): the task states a
 * field `value`, the agent's proto names it `val`, and the verifier fails on `has no "value"
 * field` while its other tests pass.
 */
let a: Attempt;
beforeAll(async () => {
  const got = await collect([resolve(REPO_ROOT, "test/fixtures/harbor-terminus2-name")]);
  expect(got.errors).toEqual([]);
  a = got.attempts[0] as Attempt;
});

const ID = "check.stated-name-absent";
const hit = (x: Attempt) => runDetectors(x, { siblings: [] }).find((h) => h.detectorId === ID);

describe("a stated name the deliverable never used", () => {
  it("reads the lacked name from the failing assertion, not the object that lacks it", () => {
    const t = (message: string) => ({ name: "t", status: "failed" as const, message });
    expect(
      lackedNames(t(`ValueError: Protocol message SetValRequest has no "value" field.`)),
    ).toEqual(["value"]);
    expect(lackedNames(t("AttributeError: module 'numpy' has no attribute 'int'"))).toEqual([
      "int",
    ]);
    expect(lackedNames(t("KeyError: 'user_id'"))).toEqual(["user_id"]);
    expect(lackedNames(t("assert 'value' in out"))).toEqual([]);
  });

  it("names constraint-unchecked on the real trial, citing the failing test", () => {
    const h = hit(a);
    expect(h?.reason).toMatch(/has no `value`, a name the task states and no write/);
    const label = heuristicLabel(a, runDetectors(a, { siblings: [] }));
    expect(label.mechanismId).toBe("constraint-unchecked");
    // the verifier line that names the failing test is the second kind of evidence
    const v = label.evidence.find((e) => e.from === "verifier");
    expect(v?.excerpt).toMatch(/test_grpc_\w+/);
  });

  it("near miss: a write that uses the name (the grader failed on something else)", () => {
    const events = a.events.map((e) =>
      e.command ? { ...e, command: e.command.replace(/\bval = 2\b/g, "value = 2") } : e,
    );
    expect(hit({ ...a, events })).toBeUndefined();
  });

  it("near miss: a name the task does not state", () => {
    expect(hit({ ...a, taskText: a.taskText.replace(/\bvalue\b/g, "number") })).toBeUndefined();
  });
});
