import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadPolicies } from "../../../src/core/policy/load.js";
import { type AttemptReplay, replayAttempt } from "../../../src/core/policy/replay.js";
import { loadWorkspace } from "../../../src/core/workspace/load.js";
import { REPO_ROOT } from "../../helpers/paths.js";

/** The demo generator's manifest (traces/generated/manifest.json): per task, family and cohort. */
interface ManifestTask {
  taskId: string;
  family: string | null;
  cohort: "positive" | "nearby-negative" | "silent";
  attemptDetails: { path: string; outcome: string; planted: string | null }[];
}

const DEMO = resolve(REPO_ROOT, "traces/generated");
const manifest = JSON.parse(readFileSync(join(DEMO, "manifest.json"), "utf8")) as {
  tasks: ManifestTask[];
};
const { policies } = loadPolicies([resolve(REPO_ROOT, "candidates/reference")]);
const families = new Set(policies.map((p) => p.family));
const byPath = new Map<string, AttemptReplay>();

beforeAll(async () => {
  const ws = await loadWorkspace(mkdtempSync(join(tmpdir(), "fire-demo-")), { sources: [DEMO] });
  for (const a of ws.attempts) byPath.set(a.source.path, replayAttempt(policies, a));
}, 120_000);

function replayOf(path: string): AttemptReplay {
  const r = byPath.get(join(DEMO, path));
  if (!r) throw new Error(`demo attempt not loaded: ${path}`);
  return r;
}

describe("reference portfolio over the demo workspace", () => {
  const planted = manifest.tasks.filter(
    (t) => t.cohort === "positive" && t.family !== null && families.has(t.family),
  );
  it("covers every reference family with positive demo tasks", () => {
    expect(new Set(planted.map((t) => t.family))).toEqual(families);
  });

  for (const task of planted) {
    it(`fires ${task.family} on every attempt of ${task.taskId} that shows the failure`, () => {
      const failing = task.attemptDetails.filter((d) => d.planted === task.family);
      expect(failing.length).toBeGreaterThan(0);
      for (const d of failing) {
        const r = replayOf(d.path);
        const own = r.policies.find((p) => p.family === task.family)!;
        expect(own.eligible, d.path).toBe(true);
        expect(own.firings, d.path).toBeGreaterThan(0);
      }
    });
  }

  for (const task of manifest.tasks.filter((t) => t.cohort === "silent")) {
    it(`stays silent on ${task.taskId} (no eligibility, no firing)`, () => {
      for (const d of task.attemptDetails) {
        const r = replayOf(d.path);
        expect(
          r.policies.filter((p) => p.eligible).map((p) => p.family),
          d.path,
        ).toEqual([]);
        expect(r.firings, d.path).toEqual([]);
      }
    });
  }

  it("codes the behaviour marker: held on every eligible passing attempt, not on any planted failure", () => {
    const tasks = manifest.tasks.filter((t) => t.family !== null && families.has(t.family));
    let checked = 0;
    for (const task of tasks) {
      for (const d of task.attemptDetails) {
        const own = replayOf(d.path).policies.find((p) => p.family === task.family)!;
        if (d.outcome === "pass" && own.eligible) expect(own.behavior, d.path).toBe(true);
        if (d.planted === task.family) expect(own.behavior, d.path).toBe(false);
        checked++;
      }
    }
    expect(checked).toBe(tasks.length * 2);
  });

  it("routes each nearby-negative task to no family but its own", () => {
    for (const task of manifest.tasks.filter(
      (t) => t.cohort === "nearby-negative" && t.family && families.has(t.family),
    )) {
      for (const d of task.attemptDetails) {
        const eligible = replayOf(d.path)
          .policies.filter((p) => p.eligible)
          .map((p) => p.family);
        expect(
          eligible.filter((f) => f !== task.family),
          task.taskId,
        ).toEqual([]);
      }
    }
  });
});
