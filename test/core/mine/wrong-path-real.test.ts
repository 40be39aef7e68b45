import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runDetectors } from "../../../src/core/mine/detectors/index.js";
import { lookedForAt, verifierMissing } from "../../../src/core/mine/detectors/paths.js";
import { heuristicLabel } from "../../../src/core/mine/heuristic.js";
import { candidates } from "../../../src/core/mine/strength.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { collectOne } from "../ingest/collect.js";

/** A real SlopCodeBench checkpoint (test/fixtures/checkpoint-run-wrong-path, README there). */
const FIXTURE = resolve(REPO_ROOT, "test/fixtures/checkpoint-run-wrong-path");
let a: Attempt;
beforeAll(async () => {
  a = await collectOne(FIXTURE);
});

describe("a program the grader could not start because it was written one folder too deep", () => {
  it("reads uv's `Failed to spawn` as the verifier naming the missing program", () => {
    expect(verifierMissing(a).paths).toEqual(["circopt.py"]);
  });

  it("resolves the relative name where the agent's own run looked for it", () => {
    const looked = lookedForAt(a, "circopt.py");
    expect(looked?.path).toBe("/workspace/circopt.py");
    expect(looked?.call.command ?? looked?.call.input).toMatch(/circopt\.py/);
    // an absolute name, or one that climbs, is not resolved
    expect(lookedForAt(a, "/workspace/circopt.py")).toBeUndefined();
    expect(lookedForAt(a, "../circopt.py")).toBeUndefined();
  });

  it("names artifact-wrong-path with both lines of evidence", () => {
    const hits = runDetectors(a, { siblings: [] });
    const hit = hits.find((h) => h.detectorId === "output.wrong-path");
    expect(hit?.reason).toBe(
      "verifier wanted circopt.py, which the agent's own run looked for at /workspace/circopt.py; the agent wrote /workspace/circopt/circopt.py",
    );
    const l = heuristicLabel(a, hits);
    expect(l.status).toBe("named");
    expect(l.mechanismId).toBe("artifact-wrong-path");
    expect(l.evidence.some((e) => e.from === "verifier" && /Failed to spawn/.test(e.excerpt))).toBe(
      true,
    );
  });

  it("takes no relative name for a place the agent never looked", () => {
    // the same run without the agent's own failed start: the relative name stays unresolved
    const quiet: Attempt = {
      ...a,
      events: a.events.map((e) =>
        e.kind === "tool_result" && (e.output ?? "").includes("can't open file")
          ? { ...e, output: "ok" }
          : e,
      ),
    };
    expect(lookedForAt(quiet, "circopt.py")).toBeUndefined();
    // the program the grader could not start is still where the agent left it, a folder down
    const hits = runDetectors(quiet, { siblings: [] });
    expect(hits.find((h) => h.detectorId === "output.wrong-path")?.reason).toBe(
      "the verifier could not start circopt.py where it ran it; the agent's circopt.py is at /workspace/circopt/circopt.py",
    );
    expect(verifierMissing(quiet).facts[0]?.ran).toBe(true);
    expect(verifierMissing(quiet).facts[0]?.excerpt).toMatch(/Failed to spawn/);
  });

  describe("a program left a folder down, when nothing said where the grader looked", () => {
    const quietOf = (x: Attempt): Attempt => ({
      ...x,
      events: x.events.map((e) =>
        e.kind === "tool_result" && (e.output ?? "").includes("can't open file")
          ? { ...e, output: "ok" }
          : e,
      ),
    });
    /** The run with one more shell command just before its stop. */
    const beforeStop = (q: Attempt, command: string): Attempt => {
      const stop = q.events.at(-1) as Attempt["events"][number];
      const call = {
        index: stop.index,
        kind: "tool_call" as const,
        tool: "Bash",
        callId: "extra-1",
        input: JSON.stringify({ command }),
        command,
      };
      return { ...q, events: [...q.events.slice(0, -1), call, { ...stop, index: stop.index + 1 }] };
    };
    const wrongPath = (x: Attempt) =>
      runDetectors(x, { siblings: [] }).find((h) => h.detectorId === "output.wrong-path");

    it("says nothing once the agent removed or moved its copy afterwards", () => {
      const moved = beforeStop(quietOf(a), "mv /workspace/circopt/circopt.py /workspace/");
      expect(wrongPath(moved)).toBeUndefined();
    });

    it("says nothing when a copy was written where its folder is unknown", () => {
      const unknown = beforeStop(quietOf(a), "cp /tmp/draft.py ./circopt.py");
      expect(wrongPath(unknown)).toBeUndefined();
    });

    it("says nothing when the verifier only misses a file of that name, not a program it ran", () => {
      const q = quietOf(a);
      const missingOnly: Attempt = {
        ...q,
        verifierTests: [
          { name: "t", status: "failed", message: "AssertionError: circopt.py does not exist" },
        ],
        verifierOutput: "",
      };
      expect(verifierMissing(missingOnly).paths).toEqual(["circopt.py"]);
      expect(verifierMissing(missingOnly).facts[0]?.ran).toBeUndefined();
      expect(wrongPath(missingOnly)).toBeUndefined();
    });
  });
  it("does not let the verifier's line about one file corroborate another never written", () => {
    // the run without its own failed start, on a task that also asks for a summary file: the
    // verifier's missing circopt.py says nothing of summary.json
    const other: Attempt = {
      ...a,
      taskText: `${a.taskText}\n\nWrite a summary of the circuit to summary.json.`,
      events: a.events.map((e) =>
        e.kind === "tool_result" && (e.output ?? "").includes("can't open file")
          ? { ...e, output: "ok" }
          : e,
      ),
    };
    const hits = runDetectors(other, { siblings: [] });
    const never = hits.find((h) => h.detectorId === "output.never-written");
    expect(never?.subject).toBe("summary.json");
    const c = candidates(other, hits, []).find((x) => x.id === "artifact-never-written");
    expect(c?.strength).toBe(1);
    // (without the hit's own files, that same line would have counted)
    const bare = hits.map((h) => (h === never ? { ...h, subject: undefined } : h));
    expect(
      candidates(other, bare, []).find((x) => x.id === "artifact-never-written")?.strength,
    ).toBe(2);
  });
  it("takes only the agent's own run of the name, not a path some output merely mentions", () => {
    // an unrelated output (a listing of notes) quoting another circopt.py that is missing
    const notes = a.events.find(
      (e) => e.kind === "tool_call" && !(e.command ?? e.input ?? "").includes("circopt.py"),
    );
    const noted: Attempt = {
      ...a,
      events: a.events.map((e) =>
        e.kind === "tool_result" && notes?.callId !== undefined && e.callId === notes.callId
          ? { ...e, output: "No such file or directory: '/opt/old/backup/circopt.py'" }
          : e,
      ),
    };
    expect(lookedForAt(noted, "circopt.py")?.path).toBe("/workspace/circopt.py");
    // and uv's spawn failure for a file that is there (not executable) names nothing missing
    const denied: Attempt = {
      ...a,
      verifierTests: [
        {
          name: "t",
          status: "failed",
          message: "error: Failed to spawn: `run.sh`\n  Caused by: Permission denied (os error 13)",
        },
      ],
      verifierOutput: "",
    };
    expect(verifierMissing(denied).paths).toEqual([]);
  });
});
