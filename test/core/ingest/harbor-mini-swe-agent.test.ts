import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { templatedObservation } from "../../../src/core/ingest/observation-template.js";
import { runDetectors } from "../../../src/core/mine/detectors/index.js";
import { neverRan } from "../../../src/core/mine/detectors/never-ran.js";
import { writtenPaths } from "../../../src/core/mine/detectors/shell.js";
import { faultOf } from "../../../src/core/mine/faults/index.js";
import { heuristicLabel } from "../../../src/core/mine/heuristic.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { exitStatus } from "../../../src/core/model/exit-status.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { byTrialFolder, collect } from "./collect.js";

/** Real Harbor trials of mini-SWE-agent (test/fixtures/harbor-mini-swe-agent, README there). */
const FIXTURE = resolve(REPO_ROOT, "test/fixtures/harbor-mini-swe-agent");
const PROVIDER_DOWN = "014_azure__walinuxagent__step34___BeyceJX";
const REFUSED = "011_bourbonut__detroit__step164___HYLLUYy";
const UNLOADED = "294_bogdanvuk__pygears__step87____ktF4zp8";
const REFUSED_CHECK = "079_conan-io__conan__step67__log__Sxi5ueY";
const SUBMITTED_FAILING = "030_amerkurev__doku__step17__sho__D4qDEDC";
let one: (trial: string) => Attempt;
beforeAll(async () => {
  const got = await collect(
    [PROVIDER_DOWN, REFUSED, UNLOADED, REFUSED_CHECK, SUBMITTED_FAILING].map((t) =>
      resolve(FIXTURE, t),
    ),
  );
  expect(got.errors).toEqual([]);
  one = byTrialFolder(got.attempts);
});
const results = (a: Attempt) => a.events.filter((e) => e.kind === "tool_result");
const calls = (a: Attempt) => a.events.filter((e) => e.kind === "tool_call");

describe("mini-SWE-agent's observation templates in Harbor's trajectory", () => {
  it("reads `<returncode>` as the exit code and keeps only the output", () => {
    const a = one(PROVIDER_DOWN);
    const rs = results(a);
    expect(rs.length).toBeGreaterThan(10);
    for (const r of rs) expect(r.output ?? "").not.toMatch(/^<returncode>/);
    expect(rs.filter((r) => r.exitCode === 0).length).toBeGreaterThan(0);
    // the agent's own test runs that failed read as failed (pytest exits 1 or 4 here)
    const failed = rs.filter((r) => exitStatus(r) === "failed");
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((r) => r.exitCode !== undefined && r.exitCode !== 0)).toBe(true);
  });

  it("reads a reply the harness refused as a call that failed and never ran", () => {
    const a = one(REFUSED);
    const rs = results(a);
    expect(rs.length).toBe(16);
    expect(rs.every((r) => r.isError === true && r.exitCode === undefined)).toBe(true);
    for (const c of calls(a)) expect(neverRan(a, c)).toBe(true);
    // sixteen refused replies running out the clock: the loop, not just the deadline
    const label = heuristicLabel(a, runDetectors(a, { siblings: [] }));
    expect(label).toMatchObject({ status: "named", mechanismId: "repeated-tool-error" });
  });

  it("tells the templates from other agents' text", () => {
    expect(templatedObservation("<returncode>2</returncode>\n<output>\nboom\n</output>")).toEqual({
      exitCode: 2,
      output: "boom",
      timedOut: false,
      refused: false,
    });
    expect(
      templatedObservation(
        "The last command <command>sleep 999</command> timed out and has been killed.",
      ),
    ).toMatchObject({ timedOut: true, refused: false });
    // a command's output that merely mentions a return code is no template
    expect(templatedObservation("the <returncode> tag holds the status")).toBeUndefined();
    expect(templatedObservation('{"stdout":"x","exit_code":0}')).toBeUndefined();
  });
});

describe("a Python agent's log that ends while its model request is being retried", () => {
  it("is the run's end: a provider fault, with the log line as evidence", () => {
    const a = one(PROVIDER_DOWN);
    expect(a.exception?.type).toBe("AgentTimeoutError");
    const last = a.events.at(-1);
    expect(last).toMatchObject({ kind: "message", role: "agent" });
    expect(last?.input).toMatch(
      /^Error: APIConnectionError: .*No address associated with hostname/,
    );
    const fault = faultOf(a);
    expect(fault?.reason).toBe("provider_fault");
    expect(fault?.detail).toContain("APIConnectionError");
  });

  it("a retry the run recovered from is none", async () => {
    // the same trial, its log going on after the retries (as it does after the earlier ones)
    const dir = join(mkdtempSync(join(tmpdir(), "fire-retry-")), PROVIDER_DOWN);
    cpSync(resolve(FIXTURE, PROVIDER_DOWN), dir, { recursive: true });
    const log = join(dir, "agent", "mini-swe-agent.txt");
    const text = readFileSync(log, "utf8");
    expect(text.split("Retrying ").length - 1).toBeGreaterThan(1);
    writeFileSync(
      log,
      `${text}\nmini-swe-agent (step 40, $0.12):\nTHOUGHT: the file is fixed now.\n`,
    );
    const got = await collect([dir]);
    const a = got.attempts[0];
    expect(a?.events.some((e) => (e.input ?? "").startsWith("Error: APIConnectionError"))).toBe(
      false,
    );
    expect(a && faultOf(a)).toBeUndefined();
    rmSync(dirname(dir), { recursive: true, force: true });
  });
});

describe("a stop after an unchecked edit that left the module unloadable", () => {
  it("is named a stop without a check, the grader's traceback at the edited file as evidence", () => {
    const a = one(UNLOADED);
    const edits = calls(a).filter((e) => /sed -i/.test(e.command ?? ""));
    expect(edits.at(-1)?.command).toContain("pygears/core/gear_inst.py");
    const l = heuristicLabel(a, runDetectors(a));
    expect(l).toMatchObject({ status: "named", mechanismId: "stop-without-check" });
    const v = l.evidence?.find((e) => e.from === "verifier");
    expect(v?.excerpt).toMatch(/gear_inst\.py", line \d+/);
    expect(a.verifierOutput).toContain("NameError: name 'gear_base_resolver' is not defined");
  });
});

describe("a stop after in-place edits with a backup suffix and a check the harness refused", () => {
  it("reads the edits as writes and names the stop, the grader's compile error as evidence", () => {
    const a = one(REFUSED_CHECK);
    const edits = calls(a).filter((e) => /^sed -i\.bak /.test(e.command ?? ""));
    expect(edits.length).toBeGreaterThan(0);
    expect(edits.every((e) => writtenPaths(e).length > 0)).toBe(true);
    const l = heuristicLabel(a, runDetectors(a));
    expect(l).toMatchObject({ status: "named", mechanismId: "stop-without-check" });
    const v = l.evidence?.find((e) => e.from === "verifier");
    expect(v?.excerpt).toMatch(/output\.py", line 125/);
  });
});

describe("a submit right after a loop of the agent's own failing test", () => {
  it("names the stop on the failing check, the loop's repeats as its evidence", () => {
    const a = one(SUBMITTED_FAILING);
    expect(a.exception).toBeUndefined();
    const hits = runDetectors(a);
    // both readings are there: the loop of one failing test, and the stop on it
    const loop = hits.find((h) => h.mechanism === "repeated-tool-error");
    const stop = hits.find((h) => h.mechanism === "stop-after-failed-check");
    expect(loop?.eventIndices.length).toBeGreaterThanOrEqual(5);
    expect(loop?.eventIndices).toContain(stop?.eventIndices[0]);
    const l = heuristicLabel(a, hits);
    expect(l).toMatchObject({ status: "named", mechanismId: "stop-after-failed-check" });
    expect(l.interventionPoint).toBe("stop");
    expect(l.evidence?.some((e) => e.excerpt?.includes("the loop runs to the end"))).toBe(true);
    expect(a.verifierOutput).toContain("test_docker_image");
  });

  it("names the loop when the harness ended the run inside it (the loop ate the time)", () => {
    const a = one(SUBMITTED_FAILING);
    const timedOut: Attempt = { ...a, exception: { type: "AgentTimeoutError" } };
    const l = heuristicLabel(timedOut, runDetectors(timedOut));
    expect(l).toMatchObject({ status: "named", mechanismId: "repeated-tool-error" });
  });
});
