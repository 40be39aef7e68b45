import { afterAll, describe, expect, it } from "vitest";
import { runMining } from "../../../src/core/mine/session.js";
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
});
