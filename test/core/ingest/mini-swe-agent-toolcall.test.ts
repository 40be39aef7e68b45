import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runDetectors } from "../../../src/core/mine/detectors/index.js";
import { heuristicLabel } from "../../../src/core/mine/heuristic.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { collect } from "./collect.js";

/** Real mini-SWE-agent 2.2 tool-calling trajectories (test/fixtures/mini-swe-agent-toolcall). */
let byTask: Map<string, Attempt>;
beforeAll(async () => {
  const got = await collect([resolve(REPO_ROOT, "test/fixtures/mini-swe-agent-toolcall")]);
  expect(got.errors).toEqual([]);
  byTask = new Map(got.attempts.map((a) => [a.taskId, a]));
});
const one = (id: string): Attempt => {
  const a = byTask.get(id);
  if (!a) throw new Error(`no attempt for ${id}`);
  return a;
};

describe("mini-SWE-agent in tool-calling mode (real runs)", () => {
  it("reads each tool call and the tool message answering it", () => {
    const a = one("astropy__astropy-13033");
    const calls = a.events.filter((e) => e.kind === "tool_call");
    const results = a.events.filter((e) => e.kind === "tool_result");
    expect(calls.length).toBeGreaterThan(10);
    expect(calls[0]?.command).toBe("ls -la");
    // every call but the submission is answered by its own tool message, exit code read
    for (const c of calls) expect(results.some((r) => r.callId === c.callId)).toBe(true);
    expect(results[0]?.exitCode).toBe(0);
    expect(a.taskText).toMatch(/TimeSeries/);
    expect(a.events.at(-1)?.kind).toBe("stop");
  });

  it("finds the harness report in eval_results/<model>/<instance>/ of the published layout", () => {
    const a = one("astropy__astropy-13033");
    expect(a.outcome).toBe("fail");
    expect(a.verifierSource?.file).toMatch(
      /eval_results\/openai__gpt-5-mini\/astropy__astropy-13033\/report\.json$/,
    );
    const failing = (a.verifierTests ?? []).filter((t) => t.status === "failed");
    expect(failing.map((t) => [t.name, t.role])).toContainEqual([
      "astropy/timeseries/tests/test_sampled.py::test_required_columns",
      "target",
    ]);
  });

  it("explains a failing test of the report with the assertion its test_output.txt printed", () => {
    const a = one("astropy__astropy-13033");
    const t = (a.verifierTests ?? []).find((x) => x.name.endsWith("::test_required_columns"));
    // pytest's E lines of the failure section, cited at their line in the harness's output
    expect(t?.message).toMatch(/expected \['time', 'a'\] as the first columns/);
    expect(t?.file).toMatch(/astropy__astropy-13033\/test_output\.txt$/);
    expect(t?.line).toBeGreaterThan(2000);
    // a passing test has no message and keeps the report as its source
    const ok = (a.verifierTests ?? []).find((x) => x.status === "passed");
    expect(ok?.message).toBeUndefined();
    expect(ok?.file).toMatch(/report\.json$/);
  });

  it("an empty diff submitted after a commit: failed, and the commit named as the loss", () => {
    const a = one("django__django-11066");
    expect(a.outcome).toBe("fail");
    expect(a.verifierOutput).toMatch(/^the submitted patch is empty/);
    // the submission is the last call's output: the run's git diff printed nothing
    const last = a.events.findLast((e) => e.kind === "tool_result");
    expect(last?.output).toBe("");
    const hits = runDetectors(a).filter(
      (h) => h.detectorId === "deliverable.diff-emptied-by-commit",
    );
    expect(hits).toHaveLength(1);
    expect(hits[0]?.reason).toMatch(/committed its changes at \[\d+\] \(\d+ files? changed\)/);
    const label = heuristicLabel(a, runDetectors(a));
    expect(label.mechanismId).toBe("artifact-never-written");
    expect(label.status).not.toBe("needs_review");
  });

  it("a patch the harness could not apply: failed, with the harness's own lines", () => {
    const a = one("mwaskom__seaborn-3069");
    expect(a.outcome).toBe("fail");
    expect(a.verifierOutput).toMatch(/^>>>>> Patch Apply Failed/);
    expect(a.verifierSource?.file).toMatch(/eval_results\/run_instance\.log$/);
    // its diff was not empty: no commit-emptied reading
    expect(runDetectors(a).some((h) => h.detectorId === "deliverable.diff-emptied-by-commit")).toBe(
      false,
    );
  });
});
