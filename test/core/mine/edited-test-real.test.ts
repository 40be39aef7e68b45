import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runDetectors } from "../../../src/core/mine/detectors/index.js";
import { callFailed } from "../../../src/core/mine/detectors/shell.js";
import { heuristicLabel } from "../../../src/core/mine/heuristic.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { collectOne } from "../ingest/collect.js";

/** A real Harbor trial of Claude Code (test/fixtures/harbor-claude-code-deepswe, README). */
const FIXTURE = resolve(REPO_ROOT, "test/fixtures/harbor-claude-code-deepswe");
let a: Attempt;
beforeAll(async () => {
  a = await collectOne(FIXTURE);
});

const call = (index: number) => {
  const e = a.events.find((x) => x.index === index);
  if (!e) throw new Error(`no event ${index}`);
  return e;
};

describe("a real Claude Code run that took its failing test out and committed", () => {
  it("reads a coloured `1 failed` as a failed run", () => {
    // vitest's report in ANSI colours, with no exit status in Harbor's trajectory
    const run = a.events.find(
      (e) =>
        e.kind === "tool_call" && /vitest run test\/fetch\/AsyncDisposal/.test(e.command ?? ""),
    );
    const failing = a.events.filter(
      (e) =>
        e.kind === "tool_result" &&
        (e.output ?? "").includes("\x1b[31m1 failed") &&
        e.exitCode === undefined,
    );
    expect(run).toBeDefined();
    expect(failing.length).toBeGreaterThan(0);
    const before = a.events.find(
      (e) => e.kind === "tool_call" && e.callId !== undefined && e.callId === failing[0]?.callId,
    );
    expect(before && callFailed(a, before)).toBe(true);
    // the agent's own passing runs are no longer read from a failing one
    const ran = runDetectors(a, { siblings: [] })
      .filter((h) => h.detectorId === "capability.earlier-success")
      .map((h) => h.eventIndices[0]);
    expect(ran).not.toContain(before?.index);
  });

  it("names edited-test-to-pass from the trace and the grader's failing test of the same behaviour", () => {
    const hits = runDetectors(a, { siblings: [] });
    const hit = hits.find((h) => h.detectorId === "check.edited-test-to-pass");
    expect(hit?.signature).toBe("test case removed");
    const [failed, edit, passed] = hit?.eventIndices ?? [];
    expect(call(failed ?? -1).command).toMatch(/vitest run/);
    expect(call(edit ?? -1).tool).toBe("Edit");
    expect(call(edit ?? -1).input).toContain("multipart parsing is interrupted");
    expect(call(passed ?? -1).command).toMatch(/vitest run/);
    expect(hit?.subject).toMatch(/Rejects multipart formData parsing/);
    const label = heuristicLabel(a, hits);
    expect(label.status).toBe("named");
    expect(label.mechanismId).toBe("edited-test-to-pass");
    expect(label.interventionPoint).toBe("tool");
    const fromVerifier = label.evidence.find((e) => e.from === "verifier");
    expect(fromVerifier?.excerpt).toMatch(/multipart formData/);
  });
});
