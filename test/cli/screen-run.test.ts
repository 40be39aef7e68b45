import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fireIn, runFire } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/paths.js";
import { planReportCheck, SCREEN_FIXTURES } from "../helpers/screens.js";

const F = SCREEN_FIXTURES;
const STANDIN = `${process.execPath} ${join(REPO_ROOT, "test/helpers/harbor-standin.mjs")}`;
const TEMPLATE =
  "{harbor!} run -p {dataset} -a standin -m scripted -k 1 -o {jobsDir} --job-name {jobName} -y {taskFlags!} --ae FIRE_ARM={arm} {hookFlags!}";

/** `fire screen run NAME` through the Harbor stand-in over the stand-in dataset. */
function standinRun(name: string, ws: string): string[] {
  return [
    "screen",
    "run",
    name,
    "--runner",
    "harbor",
    "--harbor-bin",
    STANDIN,
    "--command",
    TEMPLATE,
    "--var",
    `dataset=${join(F, "dataset")}`,
    "-w",
    ws,
  ];
}

interface ReportJson {
  contrasts: Array<{
    arm: string;
    comparator: string;
    cohort: string;
    nTasks: number;
    delta: number;
    p: number;
  }>;
  funnel: Record<string, { attempts: number; marginal: Record<string, number | null> }>;
  unscorable: unknown[];
  arms: Record<string, Record<string, { passAt1: number }>>;
}

describe("plan → run (Harbor stand-in, real hook) → import → report", () => {
  it("runs every arm × replicate as a Harbor job, resumes, refuses a changed arm", async () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-run-e2e-"));
    const plan = planReportCheck(ws, "e2e", [
      "--arms",
      "baseline,policy",
      "--attempts",
      "2",
      "--seed",
      "11",
    ]);
    expect(plan.status).toBe(0);
    const run = standinRun("e2e", ws);
    const r1 = runFire(run, { timeoutMs: 120_000 });
    expect(r1.stdout).toContain("screen e2e: 4/4 done (0 from an earlier run), 0 failed");
    expect(r1.status).toBe(0);
    expect(readdirSync(join(ws, "screens/e2e/jobs")).sort()).toEqual([
      "r1-baseline",
      "r1-policy",
      "r2-baseline",
      "r2-policy",
    ]);
    // a real Harbor trial layout with the hook's log inside
    const trial = join(ws, "screens/e2e/jobs/r1-policy/report-sales__r1-policy");
    expect(JSON.parse(readFileSync(join(trial, "result.json"), "utf8")).task_name).toBe(
      "standin/report-sales",
    );
    const log = readFileSync(join(trial, "agent/fire-hook-log.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(log.map((e) => e.event)).toContain("PreToolUse");
    expect(log.find((e) => e.event === "Stop")?.firings[0]?.ruleId).toBe("read-back");
    // the policy arm's hook came from its payload (state where the container keeps it);
    // baseline got no payload and so no hook at all
    expect(readdirSync(join(ws, "screens/e2e/payload")).sort()).toEqual(["policy"]);
    expect(readdirSync(join(trial, "agent/fire-state"))).toContain(
      "standin-r1-policy-report-sales.json",
    );
    const base = join(ws, "screens/e2e/jobs/r1-baseline/report-sales__r1-baseline/agent");
    expect(readdirSync(base).sort()).toEqual(["trajectory.json"]);

    const rep = await fireIn(["report", "e2e", "--json", "-w", ws]);
    expect(rep.status).toBe(0);
    const json = JSON.parse(rep.stdout) as ReportJson;
    expect(json.unscorable).toEqual([]);
    const eligible = json.contrasts.find(
      (c) => c.arm === "policy" && c.comparator === "baseline" && c.cohort === "eligible",
    );
    expect(eligible).toMatchObject({ nTasks: 1, delta: 1, p: 1 });
    expect(json.arms.policy?.all?.passAt1).toBe(1);
    expect(json.arms.baseline?.all?.passAt1).toBe(0.5);
    expect(json.funnel.policy?.marginal).toEqual({ risky: 2, fired: 2, behavior: 2, pass: 4 });
    expect(json.funnel.baseline?.marginal).toEqual({ risky: 2, fired: null, behavior: 0, pass: 2 });

    const r2 = runFire(run, { timeoutMs: 120_000 });
    expect(r2.stdout).toContain("4/4 done (4 from an earlier run)");

    const armFile = join(ws, "screens/e2e/arms/policy/report-check@1.json");
    const arm = JSON.parse(readFileSync(armFile, "utf8"));
    arm.rules[0].message = "Something else.";
    writeFileSync(armFile, JSON.stringify(arm));
    const r3 = runFire(run);
    expect(r3.status).toBe(1);
    expect(r3.stderr).toContain("refusing to run: arm policy: its candidate files changed");
    const status = JSON.parse(
      (await fireIn(["screen", "status", "e2e", "--json", "-w", ws])).stdout,
    );
    expect(status).toMatchObject({
      tasks: 2,
      cells: 8,
      runner: "harbor",
      unitsDone: 4,
      results: 8,
      unscorable: 0,
    });
    expect(status.planProblems).toEqual(["arm policy: its candidate files changed"]);
  }, 120_000);

  it("re-runs a provider failure as a recovery job and records the lineage", () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-run-recover-"));
    planReportCheck(ws, "rec", ["--arms", "baseline,policy", "--attempts", "1"]);
    const r = runFire(standinRun("rec", ws), {
      env: { STANDIN_FAIL_JOBS: "r1-policy/report-sales" },
      timeoutMs: 120_000,
    });
    expect(r.status).toBe(0);
    expect(r.stderr).toContain("1 recovery run(s)");
    const rows = readFileSync(join(ws, "screens/rec/results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(4);
    const recovered = rows.find((x) => x.arm === "policy" && x.task === "standin/report-sales");
    expect(recovered.unscorable).toBeUndefined();
    expect(recovered.pass).toBe(true);
    expect(recovered.source).toContain("r1-policy-rec1");
    expect(recovered.lineage).toEqual([
      join(ws, "screens/rec/jobs/r1-policy/report-sales__r1-policy"),
    ]);
    const state = JSON.parse(readFileSync(join(ws, "screens/rec/run-state.json"), "utf8"));
    expect(state.units["r1-policy"]).toMatchObject({ status: "done", recoveries: 1 });
  }, 120_000);

  it("the default command: -y, org/name tasks, multi-step trials, the only reward key, agent time", () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-run-default-"));
    planReportCheck(ws, "ms", ["--arms", "baseline,policy", "--attempts", "1"]);
    const vars = [`dataset=${join(F, "dataset")}`, "agent=standin", "model=scripted", "env=docker"];
    const args = ["screen", "run", "ms", "--runner", "harbor", "--harbor-bin", STANDIN, "-w", ws];
    const r = runFire([...args, ...vars.flatMap((v) => ["--var", v])], {
      env: { STANDIN_MULTISTEP: "1", STANDIN_REWARD_KEY: "score" },
      timeoutMs: 120_000,
    });
    expect([r.status, r.stderr.match(/fire: .*/g)]).toEqual([0, null]);
    expect(r.stdout).toContain("screen ms: 2/2 done");
    const trial = join(ws, "screens/ms/jobs/r1-policy/report-sales__r1-policy");
    expect(readdirSync(join(trial, "steps/main/agent"))).toContain("fire-hook-log.jsonl");
    const rows = readFileSync(join(ws, "screens/ms/results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const policy = rows.find((x) => x.arm === "policy" && x.task === "standin/report-sales");
    // the hook log in steps/main/agent/ was read: the policy arm is scorable and fired
    expect(policy).toMatchObject({ pass: true, fired: true });
    expect(policy.unscorable).toBeUndefined();
    // the agent's own time (agent_execution), not the trial's 90 s of setup and verifier
    expect(policy.durationS).toBeLessThan(60);
    const baseline = rows.find((x) => x.arm === "baseline" && x.task === "standin/report-sales");
    expect(baseline.pass).toBe(false); // reward 0 under the only key "score", not unknown
  }, 120_000);

  it("without -y, Harbor's prompt on a closed stdin fails the job, naming it", () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-run-noyes-"));
    planReportCheck(ws, "ny", ["--arms", "baseline", "--attempts", "1"]);
    const run = standinRun("ny", ws);
    run[run.indexOf("--command") + 1] = TEMPLATE.replace(" -y ", " ");
    const r = runFire(run, { timeoutMs: 120_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("Aborted.");
  }, 120_000);

  it("says how to get Harbor when it is missing", () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-run-noharbor-"));
    planReportCheck(ws, "x");
    const r = runFire([
      "screen",
      "run",
      "x",
      "--runner",
      "harbor",
      "--harbor-bin",
      join(ws, "no-such-harbor"),
      "-w",
      ws,
    ]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("uv tool install harbor");
    // the flag that names another Harbor, and what it expects
    expect(r.stderr).toContain(
      "; or pass --harbor-bin PATH (the Harbor executable, run through sh)",
    );
  }, 120_000);
});
