import { afterAll, describe, expect, it } from "vitest";
import { runDetectorsAll } from "../../../src/core/mine/detectors/index.js";
import { loadWorkspace } from "../../../src/core/workspace/load.js";
import { fixture } from "../../helpers/paths.js";
import { removeTempWorkspaces, tempWorkspace } from "./demo-workspace.js";

afterAll(removeTempWorkspaces);

/** Real Claude Code and Codex sessions (recorded against a scripted model). */
describe("detectors on the real-clients sessions", () => {
  it("a setsid launch with redirected streams probed from a later call is not flagged; the curl is capability evidence", async () => {
    const ws = await loadWorkspace(tempWorkspace(`${fixture("real-clients")}/`));
    const hits = runDetectorsAll(ws.attempts);
    const http = ws.attempts.filter((a) => a.source.path.includes("http-log"));
    expect(http.map((a) => a.source.format).sort()).toEqual(["claude-transcript", "codex-rollout"]);
    for (const a of http) {
      const ids = (hits.get(a.id) ?? []).map((h) => h.detectorId);
      expect(ids).not.toContain("service.attached-launch");
      const ev = (hits.get(a.id) ?? []).find((h) => h.detectorId === "capability.earlier-success");
      expect(ev?.eventIndices).toEqual([5]);
      expect(ev?.reason).toMatch(
        /^probe succeeded: curl -s --max-time 5 http:\/\/127\.0\.0\.1:8765\//,
      );
    }
    // "Clean the build directory": rm -rf with no deployment probe before it is not destructive cleanup.
    const rm = ws.attempts.filter((a) => a.source.path.includes("rm-deny"));
    expect(rm).toHaveLength(2);
    for (const a of rm) expect(hits.get(a.id)).toEqual([]);
  });
});
