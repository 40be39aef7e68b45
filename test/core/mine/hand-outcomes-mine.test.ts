import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runMining } from "../../../src/core/mine/run-mining.js";
import { setHandMark } from "../../../src/core/workspace/hand-outcomes.js";
import { loadWorkspace } from "../../../src/core/workspace/load.js";
import { fixture } from "../../helpers/paths.js";
import { removeTempWorkspaces, tempWorkspace } from "./demo-workspace.js";

afterAll(removeTempWorkspaces);

describe("mine() and outcomes given by hand (real Claude Code / Codex sessions, no verifier)", () => {
  it("mines an attempt given `fail` by hand like a verifier failure; `pass` stays out", async () => {
    const dir = tempWorkspace(`${fixture("real-clients")}/`);
    const ws = await loadWorkspace(dir);
    const sessions = ws.attempts.filter((a) => a.outcome === "unknown" && !a.links?.length);
    expect(sessions.length).toBeGreaterThanOrEqual(2);
    const before = await runMining(ws, { labeler: "heuristic" });
    expect(before.labels).toEqual([]);
    expect(before.triage.inScope).toEqual([]);
    expect(before.triage.exclusions.map((e) => e.reason)).toContain("no_outcome");

    const [failed, passed] = sessions;
    await setHandMark(dir, failed!.id, { outcome: "fail" });
    await setHandMark(dir, passed!.id, { outcome: "pass" });
    const after = await runMining(ws, { labeler: "heuristic" });
    expect(after.triage.inScope).toEqual([failed!.id]);
    expect(after.labels.map((l) => l.attemptId)).toEqual([failed!.id]);
    expect(after.finalTriage.tasks.find((t) => t.taskId === failed!.taskId)).toMatchObject({
      n: 1,
      passes: 0,
    });
    expect(after.finalTriage.tasks.find((t) => t.taskId === passed!.taskId)).toMatchObject({
      n: 1,
      passes: 1,
    });
    const excluded = after.triage.exclusions.map((e) => e.attemptId);
    expect(excluded).not.toContain(failed!.id);
    expect(excluded).not.toContain(passed!.id);
  });

  it("a sibling given `pass` by hand is a passing sibling of the failed one, as triage counts it", async () => {
    // two sessions of one task (the same working directory), as two runs of a real client
    const src = mkdtempSync(join(tmpdir(), "fire-sibling-src-"));
    const text = readFileSync(fixture("real-clients/claude-http-log/session.jsonl"), "utf8");
    const id = /"sessionId":"([0-9a-f-]{36})"/.exec(text)?.[1];
    expect(id).toBeDefined();
    for (const [run, sid] of [
      ["run1", id as string],
      ["run2", "0e8e7c2a-1111-4222-8333-944455556666"],
    ] as const) {
      mkdirSync(join(src, run));
      writeFileSync(join(src, run, "session.jsonl"), text.replaceAll(id as string, sid));
    }
    const dir = tempWorkspace(`${src}/`);
    const ws = await loadWorkspace(dir);
    const [failed, passed] = ws.attempts;
    expect(ws.attempts).toHaveLength(2);
    expect(failed?.taskId).toBe(passed?.taskId);
    await setHandMark(dir, failed!.id, { outcome: "fail" });
    const alone = await runMining(ws, { labeler: "heuristic" });
    expect(alone.labels[0]?.detectorIds).not.toContain("capability.passing-sibling");
    await setHandMark(dir, passed!.id, { outcome: "pass" });
    const after = await runMining(ws, { labeler: "heuristic" });
    const label = after.labels.find((l) => l.attemptId === failed!.id);
    expect(label?.detectorIds).toContain("capability.passing-sibling");
    expect(label?.capabilityEvidence.map((c) => c.why).join(" ")).toMatch(/1 passing sibling/);
  });
});
