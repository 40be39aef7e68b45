import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { fireIn, runFire } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/paths.js";
import { planReportCheck, SCREEN_FIXTURES } from "../helpers/screens.js";

/**
 * `fire screen run --env <cloud>`: the Harbor command carries fire's adapter
 * (`--agent-import-path` + `--ak` payload kwargs, the adapter's folder on PYTHONPATH) and no
 * host mounts; the preflight refuses before any trial; `--smoke` runs one trial through the
 * Harbor stand-in, whose adapter mode runs the real adapter in the stand-in sandbox
 * (test/helpers/harbor-sandbox/) and downloads its /logs/agent as Harbor does.
 */

const STANDIN = `${process.execPath} ${join(REPO_ROOT, "test/helpers/harbor-standin.mjs")}`;
const DATASET = join(SCREEN_FIXTURES, "dataset");
const sha256 = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");

const runArgs = (ws: string, name: string, extra: string[]) => [
  "screen",
  "run",
  name,
  "--harbor-bin",
  STANDIN,
  "--var",
  `dataset=${DATASET}`,
  "--var",
  "model=scripted",
  "-w",
  ws,
  ...extra,
];
const run = (ws: string, name: string, extra: string[], env: NodeJS.ProcessEnv = {}) =>
  runFire(
    [
      "screen",
      "run",
      name,
      "--harbor-bin",
      STANDIN,
      "--var",
      `dataset=${DATASET}`,
      "--var",
      "model=scripted",
      "-w",
      ws,
      ...extra,
    ],
    { env, timeoutMs: 240_000 },
  );

/** Every Harbor command the stand-in received, by job name. */
function harborCalls(jobsDir: string): Record<string, { argv: string[]; pythonPath: string }> {
  if (!existsSync(jobsDir)) return {};
  return Object.fromEntries(
    readdirSync(jobsDir)
      .filter((j) => existsSync(join(jobsDir, j, "standin-argv.json")))
      .map((j) => [j, JSON.parse(readFileSync(join(jobsDir, j, "standin-argv.json"), "utf8"))]),
  );
}
const flagValues = (argv: string[], flag: string): string[] =>
  argv.flatMap((a, i) => (a === flag ? [argv[i + 1] ?? ""] : []));

function sandboxMissing(): string | undefined {
  if (process.getuid?.() !== 0 || process.platform !== "linux") return "not root on Linux";
  if (spawnSync("python3", ["-c", "import tomllib"]).status !== 0) return "no python3 >= 3.11";
  if (spawnSync("unshare", ["--mount", "--fork", "true"]).status !== 0) return "no unshare";
  return undefined;
}

describe("fire screen run on a cloud Harbor environment", () => {
  let ws = "";
  beforeAll(() => {
    ws = mkdtempSync(join(tmpdir(), "fire-cloud-"));
    expect(planReportCheck(ws, "c", ["--arms", "baseline,policy", "--attempts", "1"]).status).toBe(
      0,
    );
  });

  it("--env daytona: every Harbor command uses the adapter, with the payload pinned, no mounts", async () => {
    const r = run(ws, "c", ["--env", "daytona"], { STANDIN_NO_SANDBOX: "1" });
    expect(r.stdout).toContain("screen c: 2/2 done");
    const calls = harborCalls(join(ws, "screens/c/jobs"));
    expect(Object.keys(calls).sort()).toEqual(["r1-baseline", "r1-policy"]);
    for (const [job, { argv, pythonPath }] of Object.entries(calls)) {
      expect(flagValues(argv, "--env")).toEqual(["daytona"]);
      expect(argv).not.toContain("--mounts");
      expect(argv).not.toContain("-a");
      expect(flagValues(argv, "--agent-import-path")).toEqual(["fire_harbor_agent:FireClaudeCode"]);
      // Harbor imports the module by name: the adapter shipped with fire is first on PYTHONPATH
      expect(pythonPath.split(":")[0]).toBe(join(REPO_ROOT, "harbor"));
      const ak = Object.fromEntries(
        flagValues(argv, "--ak").map((kv) => [
          kv.slice(0, kv.indexOf("=")),
          kv.slice(kv.indexOf("=") + 1),
        ]),
      );
      if (job === "r1-baseline") {
        expect(ak).toEqual({}); // the same agent class, nothing delivered
        continue;
      }
      const payload = join(ws, "screens/c/payload/policy");
      expect(ak).toEqual({
        fire_payload: payload,
        fire_payload_sha256: sha256(readFileSync(join(payload, "payload.json"))),
        fire_node: join(ws, "screens/c/payload/node"),
      });
      // the node runtime the adapter uploads where the image has none: packed, both hashes
      const index = JSON.parse(readFileSync(join(ak.fire_node ?? "", "runtimes.json"), "utf8"));
      expect(index.runtimes[0].sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    const settings = JSON.parse(readFileSync(join(ws, "screens/c/run-settings.json"), "utf8"));
    expect(settings).toMatchObject({ runner: "harbor", env: "daytona" });
    // no sandbox here (STANDIN_NO_SANDBOX): the hooked arm's trials are unscorable, per arm
    const status = await fireIn(["screen", "status", "c", "-w", ws]);
    expect(status.stdout).toContain(
      "    policy: 2 of 2 unscorable (2× no hook log: the policy hook never ran)",
    );
    expect(status.stdout).not.toMatch(/^\s+baseline:/m);
  }, 240_000);

  it("refuses before any trial: unknown env, mounts off docker, missing or foreign adapter, a template without it", async () => {
    const ws2 = mkdtempSync(join(tmpdir(), "fire-cloud-refuse-"));
    expect(planReportCheck(ws2, "r", ["--arms", "baseline,policy", "--attempts", "1"]).status).toBe(
      0,
    );
    const bad = join(ws2, "not_fire.py");
    writeFileSync(bad, "class Something:\n    pass\n");
    const cases: [string[], RegExp][] = [
      [["--env", "dayton"], /Harbor environment "dayton" is unknown .*\(--env\)/],
      [["--env", "modal", "--delivery", "mounts"], /mounted delivery cannot reach a modal sandbox/],
      [["--env", "e2b", "--adapter", join(ws2, "gone.py")], /adapter .*gone\.py is missing/],
      [["--env", "e2b", "--adapter", bad], /defines no class FireClaudeCode/],
      [["--env", "gke", "--runner", "local"], /are for --runner harbor/],
    ];
    for (const [extra, message] of cases) {
      const r = await fireIn(runArgs(ws2, "r", extra));
      expect([r.status, r.stderr]).toEqual([2, expect.stringMatching(message)]);
    }
    // a template that would not hand Harbor the adapter (checked with the built CLI: it
    // writes the payloads, with the hook bundle beside the build)
    const t = run(ws2, "r", [
      "--env",
      "runloop",
      "--command",
      "{harbor!} run -d {dataset} -a claude-code --env {env} -o {jobsDir} --job-name {jobName} {taskFlags!}",
    ]);
    expect([t.status, t.stderr]).toEqual([
      2,
      expect.stringMatching(/does not hand Harbor fire's adapter and payload/),
    ]);
    // nothing was started
    expect(existsSync(join(ws2, "screens/r/jobs"))).toBe(false);
  }, 240_000);

  it("--smoke without a delivered payload fails, saying the hook never ran in the sandbox", () => {
    const r = run(ws, "c", ["--env", "daytona", "--smoke", "--json"], { STANDIN_NO_SANDBOX: "1" });
    expect(r.status).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ ok: false, env: "daytona", delivery: "adapter", arm: "policy" });
    expect(report.problems.join("\n")).toContain("the hook never ran in the sandbox");
    // a smoke trial is not a result
    expect(existsSync(join(ws, "screens/c/smoke/smoke-policy"))).toBe(true);
  }, 240_000);

  it("an interrupted Harbor job is resumed by Harbor, its finished trials kept", () => {
    const ws3 = mkdtempSync(join(tmpdir(), "fire-cloud-resume-"));
    expect(planReportCheck(ws3, "z", ["--arms", "baseline,policy", "--attempts", "1"]).status).toBe(
      0,
    );
    const args = ["--env", "docker", "--var", "agent=standin"];
    // Harbor dies after one trial of each job: both units fail, a job folder left behind
    const first = run(ws3, "z", args, { STANDIN_STOP_AFTER: "1" });
    expect(first.status).toBe(1);
    expect(first.stdout).toContain("screen z: 0/2 done");
    const jobs = join(ws3, "screens/z/jobs");
    const kept = readdirSync(join(jobs, "r1-policy")).filter((d) => d.includes("__"));
    expect(kept.length).toBe(1);
    const keptResult = readFileSync(join(jobs, "r1-policy", kept[0] ?? "", "result.json"), "utf8");
    const second = run(ws3, "z", args);
    expect(second.stdout).toContain("screen z: 2/2 done");
    for (const job of ["r1-baseline", "r1-policy"]) {
      const calls = readFileSync(join(jobs, job, "standin-calls.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      // the second call is Harbor's own resume of the same job folder
      expect(calls.length).toBe(2);
      expect(calls[1]).toEqual(["jobs", "resume", "-p", join(jobs, job)]);
    }
    // the trial finished before the interruption was not run again
    expect(readFileSync(join(jobs, "r1-policy", kept[0] ?? "", "result.json"), "utf8")).toBe(
      keptResult,
    );
    const rows = readFileSync(join(ws3, "screens/z/results.jsonl"), "utf8").trim().split("\n");
    expect(rows.length).toBe(4);
  }, 240_000);

  it("an interrupted recovery job is resumed too; cost and progress as Harbor reported them", () => {
    const ws4 = mkdtempSync(join(tmpdir(), "fire-cloud-rec-"));
    expect(planReportCheck(ws4, "y", ["--arms", "baseline,policy", "--attempts", "1"]).status).toBe(
      0,
    );
    const args = ["--env", "docker", "--var", "agent=standin"];
    // both policy trials hit a provider failure; the recovery job dies after one trial
    const first = run(ws4, "y", args, {
      STANDIN_FAIL_JOBS: "r1-policy/report-sales,r1-policy/fix-tests",
      STANDIN_STOP_JOB: "r1-policy-rec1",
      STANDIN_STOP_AFTER: "1",
    });
    expect(first.status).toBe(1);
    expect(first.stdout).toContain("screen y: 1/2 done");
    expect(first.stderr).toMatch(/r1-policy failed: recovery run r1-policy-rec1: harbor exited 1/);
    // the unfinished unit stored nothing: no policy row is unscorable in the results
    const firstRows = readFileSync(join(ws4, "screens/y/results.jsonl"), "utf8").trim().split("\n");
    expect(firstRows.every((l) => JSON.parse(l).arm === "baseline")).toBe(true);
    const rec = join(ws4, "screens/y/jobs/r1-policy-rec1");
    const kept = readdirSync(rec).filter((d) => d.includes("__"));
    expect(kept.length).toBe(1);
    const keptResult = readFileSync(join(rec, kept[0] ?? "", "result.json"), "utf8");

    const second = run(ws4, "y", args);
    expect(second.stdout).toContain("screen y: 2/2 done");
    const calls = readFileSync(join(rec, "standin-calls.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(calls.length).toBe(2);
    expect(calls[1]).toEqual(["jobs", "resume", "-p", rec]);
    // the recovery trial paid for before the interruption was kept, not run again
    expect(readFileSync(join(rec, kept[0] ?? "", "result.json"), "utf8")).toBe(keptResult);
    const rows = readFileSync(join(ws4, "screens/y/results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const policy = rows.filter((r) => r.arm === "policy");
    expect(policy.length).toBe(2);
    expect(policy.every((r) => !r.unscorable && r.lineage?.length === 1)).toBe(true);
    // Harbor's live progress of each job, read from its result.json while it ran or at its end
    expect(second.stderr).toMatch(/r1-policy-rec1 trials: 2\/2 trial\(s\), \$0\.02/);

    // cost and progress as Harbor reported them: every job, recovery runs included
    const status = runFire(["screen", "status", "y", "-w", ws4, "--json"]);
    expect(status.status).toBe(0);
    const h = JSON.parse(status.stdout).harbor;
    expect(h).toMatchObject({
      jobs: 3,
      total: 6,
      completed: 6,
      errored: 2,
      running: 0,
      pending: 0,
      // the policy job whose two trials failed at the provider reported no cost at all
      jobsWithoutCost: 1,
      tokens: { input: 400, cache: 0, output: 80 },
      problems: [],
    });
    expect(h.costUsd).toBeCloseTo(0.04, 10);
    expect(h.byArm.policy).toMatchObject({ jobs: 2, completed: 4, errored: 2 });
    expect(h.byArm.policy.costUsd).toBeCloseTo(0.02, 10);
    expect(h.byArm.baseline.costUsd).toBeCloseTo(0.02, 10);
    const text = runFire(["screen", "status", "y", "-w", ws4]).stdout;
    expect(text).toContain(
      "harbor   3 job(s): 6/6 trial(s), 2 errored, $0.04; tokens 400 input, 0 cache, 80 output",
    );
    expect(text).toContain(
      "    per arm: baseline 2/2 trial(s), $0.02; policy 4/4 trial(s), 2 errored, $0.02",
    );
    expect(text).toContain("    1 job(s) with finished trials reported no cost");
    // and in the report, beside the arm table's cost of the scored attempts
    const report = runFire(["report", "y", "-w", ws4]).stdout;
    expect(report).toContain("Harbor run (as Harbor reported it; recovery runs included)");
    expect(report).toMatch(/^\s+policy\s+2\s+4\/4\s+2\s+\$0\.02\s+1$/m);
    expect(report).toMatch(/^\s+all\s+3\s+6\/6\s+2\s+\$0\.04\s+1$/m);
    const json = JSON.parse(runFire(["report", "y", "-w", ws4, "--json"]).stdout);
    expect(json.harbor.costUsd).toBeCloseTo(0.04, 10);
  }, 300_000);

  it("fire screen run shows Harbor's trial counts while a job runs", () => {
    const ws5 = mkdtempSync(join(tmpdir(), "fire-cloud-live-"));
    expect(planReportCheck(ws5, "x", ["--arms", "baseline", "--attempts", "1"]).status).toBe(0);
    // each trial takes 4 s; fire reads the job's result.json every 2 s
    const r = run(ws5, "x", ["--env", "docker", "--var", "agent=standin"], {
      STANDIN_TRIAL_DELAY_MS: "4000",
    });
    expect(r.status).toBe(0);
    const live = r.stderr.split("\n").filter((l) => l.includes("r1-baseline trials:"));
    // a line while the job ran (a trial running), and the job's last state
    expect(live.some((l) => /\d\/2 trial\(s\), 1 running/.test(l))).toBe(true);
    expect(live.at(-1)).toMatch(/trials: 2\/2 trial\(s\), \$0\.02$/);
  }, 120_000);

  const missing = sandboxMissing();
  it.skipIf(missing)(
    "--smoke: one trial in the (stand-in) sandbox proves the hook ran there",
    () => {
      const r = run(ws, "c", ["--env", "daytona", "--smoke"]);
      expect(r.stderr).not.toMatch(/problem/);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^smoke passed: daytona \(adapter\), arm policy, task standin\//);
      const trial = readdirSync(join(ws, "screens/c/smoke/smoke-policy")).find((d) =>
        d.includes("__smoke-policy"),
      );
      const agent = join(ws, "screens/c/smoke/smoke-policy", trial ?? "", "agent");
      const delivery = JSON.parse(readFileSync(join(agent, "fire-delivery.json"), "utf8"));
      expect(r.stdout).toContain(`sandbox id ${delivery.payload.sandbox}: logged by`);
      const calls = readFileSync(join(agent, "fire-sandbox.jsonl"), "utf8").trim().split("\n");
      const events = readFileSync(join(agent, "fire-hook-log.jsonl"), "utf8").trim().split("\n");
      expect(calls.length).toBe(events.length);
      expect(r.stdout).toContain(`hook log: ${events.length} event(s)`);
    },
    240_000,
  );
});
