/**
 * A SWE-bench submission's layout (`<run>/trajs/`, `<run>/results/results.json`,
 * `<run>/logs/<id>/run_instance.log`), read from real files of SWE-agent on Multi-SWE-bench
 * Java (test/fixtures/swe-agent-submission, provenance in its README).
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loggedReport } from "../../../src/core/ingest/swebench-report.js";
import { faultOf } from "../../../src/core/mine/faults/index.js";
import { type Attempt, UNFINISHED_TRIAL } from "../../../src/core/model/attempt.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { type Collected, collect } from "./collect.js";

const FIXTURE = resolve(REPO_ROOT, "test/fixtures/swe-agent-submission");
const RUN = join(FIXTURE, "20240825_SWE-agent_deepseek-coder-v2");
const logOf = (id: string) => join(RUN, "logs", id, "run_instance.log");

let got: Collected;
beforeAll(async () => {
  got = await collect([FIXTURE]);
});
const one = (id: string): Attempt => {
  const a = got.attempts.find((x) => x.taskId === id);
  if (!a) throw new Error(`no attempt for ${id}`);
  return a;
};

describe("SWE-bench submission layout", () => {
  it("reads the summary in results/ as the run's, not as an unknown file", () => {
    expect(got.errors).toEqual([]);
    expect(got.attempts).toHaveLength(3);
    expect(one("fasterxml__jackson-databind-3701").outcome).toBe("pass");
    expect(one("fasterxml__jackson-databind-2002").outcome).toBe("fail");
  });

  it("a trajectory without SWE-agent's exit status that nothing graded is an unfinished trial", () => {
    const a = one("fasterxml__jackson-core-891");
    expect(a.outcome).toBe("unknown");
    expect(a.exception?.type).toBe(UNFINISHED_TRIAL);
    expect(faultOf(a)).toMatchObject({ reason: "provider_fault", code: "trial-unfinished" });
    // a run SWE-agent ended itself keeps its own end, graded or not
    expect(one("fasterxml__jackson-databind-2002").exception?.type).not.toBe(UNFINISHED_TRIAL);
  });

  it("names the model from the run's predictions (SWE-agent's run name, model first)", () => {
    expect(one("fasterxml__jackson-databind-2002").model).toBe("deepseek-coder");
    expect(one("fasterxml__jackson-databind-3701").model).toBe("deepseek-coder");
  });

  it("takes the graded tests from the report the harness's log prints", () => {
    const a = one("fasterxml__jackson-databind-2002");
    expect(a.verifierSource?.file).toBe(logOf("fasterxml__jackson-databind-2002"));
    expect(a.verifierTests).toContainEqual(
      expect.objectContaining({
        name: "src:com.fasterxml.jackson.databind.introspect.IgnoredFieldPresentInCreatorProperty2001Test",
        status: "failed",
        role: "target",
      }),
    );
    expect(a.verifierOutput).toContain("FAIL_TO_PASS failed:");
  });

  it("a report line keyed by the instance; a broken one is an error with file and line", () => {
    const file = logOf("fasterxml__jackson-databind-3701");
    const text = readFileSync(file, "utf8");
    const r = loggedReport(text, file, "fasterxml__jackson-databind-3701");
    expect(r && "entry" in r && r.entry.resolved).toBe(true);
    expect(loggedReport(text, file, "another__instance-1")).toBeUndefined();
    const broken = `${text.split("report: {")[0]}report: {'x': [1, 2\n`;
    const e = loggedReport(broken, file, "x");
    expect(e && "error" in e && e.error.format()).toMatch(/run_instance\.log:40: report:/);
  });
});
