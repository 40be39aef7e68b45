import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDetectorsAll } from "../../../src/core/mine/detectors/index.js";
import type { DetectorHit } from "../../../src/core/mine/detectors/types.js";
import type { DemoManifest } from "../../../src/core/mine/validation.js";
import type { Workspace } from "../../../src/core/workspace/load.js";
import { attemptAt, demoManifest, loadDemo, removeTempWorkspaces } from "./demo-workspace.js";

afterAll(removeTempWorkspaces);

/** The detector that must fire for each planted family on the demo. */
const MUST_FIRE: Record<string, string> = {
  "service-persistence": "service.attached-launch",
  "deployment-preservation": "deploy.destructive-after-probe",
  "database-evidence": "evidence.mutated-before-copy",
  "exact-replacement": "exact.no-diff-after-replace",
  "latex-final-log": "latex.final-log-unchecked",
  "binary-equivalence": "binary.never-compared",
  "dataset-token-accounting": "dataset.fields-unreconciled",
  "multi-answer-enumeration": "answers.single-emitted",
  "stop-without-check": "stop.no-check-after-write",
};

let ws: Workspace;
let manifest: DemoManifest;
let hits: Map<string, DetectorHit[]>;

beforeAll(async () => {
  ws = await loadDemo();
  manifest = demoManifest();
  hits = runDetectorsAll(ws.attempts);
});

const details = () =>
  manifest.tasks.flatMap((t) => t.attemptDetails.map((d) => ({ ...d, taskId: t.taskId })));

describe("detectors on the generated demo corpus (ground truth: manifest.json)", () => {
  it("loads every manifest attempt through the real importers", () => {
    expect(details().length).toBe(80);
    for (const d of details()) expect(attemptAt(ws.attempts, d.path).taskId).toBe(d.taskId);
  });

  it("must find: every planted family fires its detector on the planted pre-failure step", () => {
    // (the step may be cited by another detector of the same family, e.g. the formatter run)
    const planted = details().filter((d) => d.planted && d.planted in MUST_FIRE);
    expect(planted.length).toBe(25);
    let checked = 0;
    for (const d of planted) {
      const a = attemptAt(ws.attempts, d.path);
      const own = (hits.get(a.id) ?? []).filter(
        (h) => h.detectorId === MUST_FIRE[d.planted as string],
      );
      expect(own.length, `${d.path}: ${MUST_FIRE[d.planted as string]}`).toBeGreaterThan(0);
      expect(own.every((h) => h.family === d.planted)).toBe(true);
      const ofFamily = (hits.get(a.id) ?? []).filter((h) => h.family === d.planted);
      const cmds = ofFamily.flatMap((h) =>
        h.eventIndices.map((i) => a.events.find((e) => e.index === i)?.command),
      );
      // The token-count attempt that skipped a field plants the count step; the detector cites the write.
      if (d.path.includes("token-count-qa-dataset__QqZGeku")) continue;
      expect(d.preFailure?.command, d.path).toBeDefined();
      expect(cmds, d.path).toContain(d.preFailure?.command);
      checked++;
    }
    expect(checked).toBe(24);
  });

  it("must not find: no family detector fires on a passing attempt or an unplanted failure", () => {
    const clean = details().filter(
      (d) =>
        d.outcome === "pass" ||
        d.planted === null ||
        d.planted === "capability_gap" ||
        d.planted === "provider_fault",
    );
    expect(clean.length).toBe(55);
    for (const d of clean) {
      const a = attemptAt(ws.attempts, d.path);
      const fam = (hits.get(a.id) ?? [])
        .filter((h) => h.family !== undefined)
        .map((h) => h.detectorId);
      expect(fam, d.path).toEqual([]);
    }
  });

  it("capability evidence: a passing sibling on every 1/2 task, an earlier good probe in the service failures", () => {
    for (const t of manifest.tasks.filter(
      (x) => x.attemptDetails.filter((d) => d.outcome === "pass").length === 1,
    )) {
      const failed = t.attemptDetails.find((d) => d.outcome !== "pass");
      if (!failed) continue;
      const a = attemptAt(ws.attempts, failed.path);
      expect(
        (hits.get(a.id) ?? []).map((h) => h.detectorId),
        t.taskId,
      ).toContain("capability.passing-sibling");
    }
    const flask = manifest.tasks.find((t) => t.taskId === "flask-kv-store-api");
    for (const d of flask?.attemptDetails ?? []) {
      const a = attemptAt(ws.attempts, d.path);
      const ev = (hits.get(a.id) ?? []).find((h) => h.detectorId === "capability.earlier-success");
      expect(ev?.reason).toMatch(/^probe succeeded: .*curl/);
    }
  });

  it("timeout and provider fault: the timed-out gap attempt is flagged, the provider fault has no family hit", () => {
    const dec = manifest.tasks.find((t) => t.taskId === "custom-archive-decoder");
    const timedOut = dec?.attemptDetails.find((d) => d.outcome === "timeout");
    expect(timedOut).toBeDefined();
    const a = attemptAt(ws.attempts, timedOut?.path ?? "");
    expect((hits.get(a.id) ?? []).find((h) => h.detectorId === "run.timeout")?.reason).toBe(
      "exception AgentTimeoutError",
    );
  });

  it("is deterministic: the same corpus gives identical hits", () => {
    const again = runDetectorsAll(ws.attempts);
    expect(JSON.stringify([...again.entries()])).toBe(JSON.stringify([...hits.entries()]));
  });
});
