import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDetectorsAll } from "../../../src/core/mine/detectors/index.js";
import type { DetectorHit } from "../../../src/core/mine/detectors/types.js";
import { heuristicLabel } from "../../../src/core/mine/heuristic.js";
import { triage } from "../../../src/core/mine/triage.js";
import type { Workspace } from "../../../src/core/workspace/load.js";
import { attemptByPrefix, loadOpenclaw, removeTempWorkspaces } from "./demo-workspace.js";

afterAll(removeTempWorkspaces);

/** Real failed OpenClaw trials; expectations follow each trial's FAILURE_ATTRIBUTION.md. */
let ws: Workspace;
let hits: Map<string, DetectorHit[]>;
const ids = (prefix: string): string[] =>
  (hits.get(attemptByPrefix(ws.attempts, prefix).id) ?? []).map((h) => h.detectorId);
const hit = (prefix: string, id: string): DetectorHit | undefined =>
  (hits.get(attemptByPrefix(ws.attempts, prefix).id) ?? []).find((h) => h.detectorId === id);

beforeAll(async () => {
  ws = await loadOpenclaw();
  hits = runDetectorsAll(ws.attempts);
});

describe("detectors on the real harbor-openclaw trials", () => {
  it("reads all 15 trials", () => {
    expect(ws.attempts.length).toBe(15);
  });

  it("t4-delegation-repair (upstream LLM API error on the first turn) is a provider fault, not mined", () => {
    const t = triage(ws.attempts);
    const ex = t.exclusions.find((e) => e.attemptId.startsWith("t4-delegation-repair__x8HNRDi"));
    expect(ex?.reason).toBe("provider_fault");
    expect(ex?.detail).toMatch(/^the agent's model produced no output/);
    // delegation (provider), browser-research, csv-stock-trend, email-triage,
    // session-chain-analysis (verifier), gh-issue-triage, gws-cross-service (environment)
    // are out of scope
    expect(t.inScope).toHaveLength(8);
  });

  it("task-log-hdfs-block-ops (AgentTimeoutError after 540 s, report rewritten 33 times, never checked)", () => {
    expect(hit("task-log-hdfs-block-ops__nvME2du", "run.timeout")?.reason).toBe(
      "exception AgentTimeoutError",
    );
    const stop = hit("task-log-hdfs-block-ops__nvME2du", "stop.no-check-after-write");
    const a = attemptByPrefix(ws.attempts, "task-log-hdfs-block-ops__nvME2du");
    const ev = a.events.find((e) => e.index === stop?.eventIndices[0]);
    expect(ev?.tool).toBe("write");
    expect(ev?.writes?.[0]).toMatch(/hdfs_block_ops_report\.md$/);
  });

  it("task-image-gen and task-gh-issue-triage never wrote the file the task names", () => {
    expect(hit("task-image-gen__Xvxipd8", "output.never-written")?.reason).toBe(
      "never written: robot_cafe.png",
    );
    expect(hit("task-gh-issue-triage__sx8jKBo", "output.never-written")?.reason).toBe(
      "never written: triage_report.md",
    );
  });

  it("t2-add-tests-normalizer wrote and verified its tests: capability evidence, no stop-without-check", () => {
    const ev = hit("t2-add-tests-normalizer__BPeAoa2", "capability.earlier-success");
    expect(ev?.eventIndices).toEqual([12]);
    expect(ev?.reason).toBe("test run succeeded: pytest test_normalizer.py -v");
    expect(ids("t2-add-tests-normalizer__BPeAoa2")).not.toContain("stop.no-check-after-write");
  });

  it("t3-data-pipeline-report ran the pipeline after its edit: no stop-without-check", () => {
    expect(ids("t3-data-pipeline-report__25HCHpE")).not.toContain("stop.no-check-after-write");
  });

  it("per trial: exactly these detectors fire, at these events", () => {
    const expected: Record<string, string[]> = {
      "t2-add-tests-normalizer__BPeAoa2": ["capability.earlier-success@12", "output.wrong-path@5"],
      "t3-data-pipeline-report__25HCHpE": ["check.constraint-unchecked@7"],
      "t4-browser-research-and-code__56zvvqY": ["capability.earlier-success@28"],
      "t4-delegation-repair__x8HNRDi": [],
      "t4-life-trip-plan__AjimJm5": ["input.discovery-miss@4,7,14", "stop.no-check-after-write@12"],
      "t4-life-trip-plan__pk7EZC6": [
        "input.discovery-miss@2,12,27",
        "stop.no-check-after-write@25",
        "loop.repeated-failure@5,6,7,13,14,15",
      ],
      "t5-hallucination-resistant-evide__85qPU4": [
        "output.never-written@806",
        "deadline.no-deliverable@806",
        "loop.repeated-failure@41,43,45,…",
        // the same searches of the wrong folder, run again and again with the same answer
        "loop.no-progress@3,13,15,…",
        "loop.no-progress@7,9,17,…",
        "loop.no-progress@1,141,581,…",
        "loop.no-progress@11,227,635,…",
        "run.timeout@806",
      ],
      "task-calendar__8A83BnJ": ["output.wrong-path@3", "stop.no-check-after-write@3"],
      "task-csv-stock-trend__EMfhUA5": ["stop.no-check-after-write@3"],
      "task-email-triage__fEmQAc2": ["stop.no-check-after-write@27"],
      // fetching a release page and installing gh (@7, @9) is not capability evidence
      "task-gh-issue-triage__sx8jKBo": ["output.never-written@18", "input.discovery-miss@5,17"],
      "task-gws-cross-service__mYkXS7N": [
        "input.discovery-miss@3,23,31",
        "stop.no-check-after-write@29",
      ],
      "task-image-gen__Xvxipd8": ["output.never-written@2"],
      "task-log-hdfs-block-ops__nvME2du": [
        "deadline.no-deliverable@15,17,19,…",
        "stop.no-check-after-write@79",
        "run.timeout@80",
      ],
      "task-session-chain-analysis__UGpJKzs": ["stop.no-check-after-write@117"],
    };
    const short = (xs: number[]) =>
      xs.length > 6 ? `${xs.slice(0, 3).join(",")},…` : xs.join(",");
    for (const [prefix, want] of Object.entries(expected)) {
      const a = attemptByPrefix(ws.attempts, prefix);
      const got = (hits.get(a.id) ?? []).map((h) => `${h.detectorId}@${short(h.eventIndices)}`);
      expect(got, prefix).toEqual(want);
    }
  });

  it("none of the paper-family detectors fire on these unrelated workflows", () => {
    const paper = [...hits.values()]
      .flat()
      .filter((h) => h.family !== undefined && h.family !== "stop-without-check");
    expect(paper).toEqual([]);
  });

  it("the heuristic labeller names open mechanisms from evidence, with signature and events", () => {
    const label = (prefix: string) => {
      const a = attemptByPrefix(ws.attempts, prefix);
      return heuristicLabel(a, hits.get(a.id) ?? []);
    };
    const got = Object.fromEntries(
      [
        "t2-add-tests-normalizer__BPeAoa2",
        "t3-data-pipeline-report__25HCHpE",
        "t4-life-trip-plan__AjimJm5",
        "t4-life-trip-plan__pk7EZC6",
        "t5-hallucination-resistant-evide__85qPU4",
        "task-calendar__8A83BnJ",
        "task-log-hdfs-block-ops__nvME2du",
      ].map((p) => {
        const l = label(p);
        const what = l.mechanismId ?? `suspected ${l.suspected?.[0]?.mechanismId}`;
        return [p, `${what}|${l.interventionPoint}|${l.status}|${l.kind}`];
      }),
    );
    // Named only with a second kind of evidence (the verifier names the missing file, the
    // result records the timeout, the loop runs to the end); a pattern alone is for review.
    // Procedural loss only with capability evidence (t2 ran its own tests).
    expect(got).toEqual({
      "t2-add-tests-normalizer__BPeAoa2": "artifact-wrong-path|stop|named|procedural_loss",
      "t3-data-pipeline-report__25HCHpE":
        "suspected constraint-unchecked|stop|needs_review|policy_addressable",
      "t4-life-trip-plan__AjimJm5":
        "suspected task-input-missed|stop|needs_review|policy_addressable",
      "t4-life-trip-plan__pk7EZC6": "repeated-tool-error|tool|named|policy_addressable",
      // the time ran out inside the loop: the deadline is its symptom
      "t5-hallucination-resistant-evide__85qPU4":
        "repeated-tool-error|tool|named|policy_addressable",
      "task-calendar__8A83BnJ": "artifact-wrong-path|stop|named|policy_addressable",
      "task-log-hdfs-block-ops__nvME2du": "deadline-no-deliverable|tool|named|policy_addressable",
    });
    const sig = (p: string) => label(p).signature;
    expect(sig("t5-hallucination-resistant-evide__85qPU4")).toBe(
      "read: enoent: no such file or directory, access '/workspace/answer.txt'",
    );
    expect(sig("task-calendar__8A83BnJ")).toBe("written elsewhere");
    expect(sig("task-log-hdfs-block-ops__nvME2du")).toBe("placeholder deliverable");
    // every named label cites a verifier line or a result record besides its event
    for (const p of ["t5-hallucination-resistant-evide__85qPU4", "task-calendar__8A83BnJ"])
      expect(
        label(p).evidence?.some((e) => e.from === "verifier" && e.file !== undefined),
        p,
      ).toBe(true);
    expect(
      label("task-log-hdfs-block-ops__nvME2du").evidence?.some((e) => e.from === "result"),
    ).toBe(true);
    const t5 = label("t5-hallucination-resistant-evide__85qPU4");
    // the loop's calls, and the deadline's record of what it cost
    expect(t5.evidenceEvents?.slice(0, 3)).toEqual([1, 3, 7]);
    expect(t5.evidence?.some((e) => e.from === "result")).toBe(true);
    expect(t5.family).toBeUndefined();
  });

  it("a loop of identical non-shell tool errors is that tool's repeated error", () => {
    const loop = hit("t5-hallucination-resistant-evide__85qPU4", "loop.repeated-failure");
    expect(loop?.reason).toMatch(/^140× read failed: enoent: no such file or directory/);
    expect(loop?.signature).toBe(
      "read: enoent: no such file or directory, access '/workspace/answer.txt'",
    );
    expect(loop?.mechanism).toBe("repeated-tool-error");
    const memory = hit("t4-life-trip-plan__pk7EZC6", "loop.repeated-failure");
    expect(memory?.reason).toMatch(/^6× memory_search failed: no api key found/);
  });
});
