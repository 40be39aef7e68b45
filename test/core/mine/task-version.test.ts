import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { passingSibling } from "../../../src/core/compare/align.js";
import { runDetectorsAll } from "../../../src/core/mine/detectors/index.js";
import { type Attempt, sameTask } from "../../../src/core/model/attempt.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { collect } from "../ingest/collect.js";

/** A real Harbor trial (test/fixtures/harbor-terminus2) and a passing copy of it. */
let failed: Attempt;
beforeAll(async () => {
  const got = await collect([resolve(REPO_ROOT, "test/fixtures/harbor-terminus2")]);
  failed = got.attempts[0] as Attempt;
});

const passing = (version: string | undefined): Attempt => ({
  ...failed,
  id: `${failed.id}-pass`,
  outcome: "pass",
  reward: 1,
  taskVersion: version,
});
const capability = (a: Attempt, s: Attempt) =>
  (runDetectorsAll([a, s]).get(a.id) ?? []).some(
    (h) => h.detectorId === "capability.passing-sibling",
  );

describe("task versions (Harbor's task_checksum)", () => {
  it("reads the trial's task checksum as its task version", () => {
    // result.json: "task_checksum": "c900ff5d…"
    expect(failed.taskVersion).toBe(
      "c900ff5db07ad231170f95c658891924a779b0866a4eabfeaa87c932bbce7d9f",
    );
  });

  it("a passing attempt of another version of the task is no sibling", () => {
    const other = passing("0".repeat(64));
    expect(sameTask(failed, other)).toBe(false);
    expect(capability(failed, other)).toBe(false);
    expect(passingSibling(failed, [failed, other])).toBeUndefined();
  });

  it("the same version, or a version unknown on either side, is a sibling", () => {
    for (const v of [failed.taskVersion, undefined]) {
      const s = passing(v);
      expect(sameTask(failed, s)).toBe(true);
      expect(capability(failed, s)).toBe(true);
      expect(passingSibling(failed, [failed, s])?.id).toBe(s.id);
    }
  });
});
