import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { InputError } from "../../../src/core/errors.js";
import { loadPolicies } from "../../../src/core/policy/load.js";
import { Candidate } from "../../../src/core/policy/schema.js";
import { classifyTasks } from "../../../src/core/screening/cohorts.js";
import { buildPlan, buildSchedule } from "../../../src/core/screening/plan/build.js";
import {
  checkPlan,
  readIntactPlan,
  readPlan,
  writePlan,
} from "../../../src/core/screening/plan/plan-file.js";
import { REPO_ROOT } from "../../helpers/paths.js";

const CANDIDATE = join(REPO_ROOT, "test/fixtures/screens/candidates/report-check.yaml");
const ARMS = ["baseline", "policy", "sham", "always-verify", "reconsider"] as const;

function policies(path = CANDIDATE) {
  const r = loadPolicies([path]);
  expect(r.errors).toEqual([]);
  return r.policies;
}

const tasks = [
  { taskId: "a", text: "Write a short report of the results." },
  { taskId: "b", text: "Fix the failing unit test." },
  { taskId: "c", text: "Summarize the logs in summary.md" },
];

describe("cohorts by the policy's compiled eligibility", () => {
  it("routes report/summary tasks to eligible, the rest to silent", () => {
    expect(classifyTasks(tasks, policies())).toEqual([
      { id: "a", cohort: "eligible", matched: "report" },
      { id: "b", cohort: "silent" },
      { id: "c", cohort: "eligible", matched: "Summarize" },
    ]);
  });
});

describe("schedule", () => {
  it("shuffles arm order per replicate from the seed, reproducibly", () => {
    const t = [{ id: "a", cohort: "eligible" }];
    const s1 = buildSchedule(7, 4, ARMS, t);
    expect(s1).toEqual(buildSchedule(7, 4, ARMS, t));
    expect(s1).toHaveLength(20);
    const orders = [1, 2, 3, 4].map((r) =>
      s1
        .filter((c) => c.replicate === r)
        .map((c) => c.arm)
        .join(","),
    );
    for (const o of orders) expect(o.split(",").sort()).toEqual([...ARMS].sort());
    expect(new Set(orders).size).toBeGreaterThan(1);
    expect(buildSchedule(8, 4, ARMS, t)).not.toEqual(s1);
  });
});

describe("plan files and hashes", () => {
  function planIn(source: string) {
    const ps = policies(source);
    return buildPlan({
      name: "s1",
      seed: 3,
      attempts: 2,
      arms: ARMS,
      source: { kind: "candidate", path: source },
      candidates: ps.map((p) => p.candidate),
      tasks: classifyTasks(tasks, ps),
      createdAt: "2026-01-01T00:00:00.000Z",
    });
  }

  it("writes every arm as candidate data; the sham keeps timing with generic text", async () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-plan-"));
    const built = planIn(CANDIDATE);
    await writePlan(ws, built);
    const plan = await readPlan(ws, "s1");
    expect(plan.arms.map((a) => [a.name, a.files.length])).toEqual([
      ["baseline", 0],
      ["policy", 1],
      ["sham", 1],
      ["always-verify", 1],
      ["reconsider", 1],
    ]);
    const dir = join(ws, "screens/s1");
    const sham = Candidate.parse(
      JSON.parse(readFileSync(join(dir, plan.arms[2]?.files[0] as string), "utf8")),
    );
    const real = policies()[0]?.candidate;
    expect(sham.id).toBe("report-check-sham");
    expect(sham.eligibility).toEqual(real?.eligibility);
    expect(sham.rules[0]?.at).toBe(real?.rules[0]?.at);
    expect(sham.rules[0]?.message).not.toBe(real?.rules[0]?.message);
    const av = Candidate.parse(
      JSON.parse(readFileSync(join(dir, plan.arms[3]?.files[0] as string), "utf8")),
    );
    expect(av.rules[0]).toMatchObject({ at: "stop", action: "instruct" });
    expect(av.behavior).toEqual(real?.behavior);
    expect(await checkPlan(ws, plan)).toEqual([]);
    await expect(writePlan(ws, built)).rejects.toThrow(/already has a plan/);
  });

  it("detects and refuses a changed arm file, task list or policy source", async () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-plan-"));
    const source = join(ws, "candidate.yaml");
    cpSync(CANDIDATE, source);
    await writePlan(ws, planIn(source));
    const dir = join(ws, "screens/s1");
    const plan = await readPlan(ws, "s1");

    const armFile = join(dir, plan.arms[1]?.files[0] as string);
    const arm = JSON.parse(readFileSync(armFile, "utf8"));
    arm.rules[0].message = "A different instruction.";
    writeFileSync(armFile, JSON.stringify(arm));
    writeFileSync(
      source,
      readFileSync(CANDIDATE, "utf8").replace("open the report", "reopen the report"),
    );
    const planJson = JSON.parse(readFileSync(join(dir, "plan.json"), "utf8"));
    planJson.tasks.pop();
    writeFileSync(join(dir, "plan.json"), JSON.stringify(planJson));

    const problems = await checkPlan(ws, await readPlan(ws, "s1"));
    expect(problems).toEqual([
      "plan.json was edited after planning",
      "the task list changed",
      "arm policy: its candidate files changed",
      `policy source ${source} changed since planning`,
    ]);
    await expect(readIntactPlan(ws, "s1")).rejects.toThrow(/refusing to run/);
  });

  it("names plan.json and the line of a syntax or schema error, and a missing plan", async () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-plan-"));
    await expect(readPlan(ws, "s1")).rejects.toThrow(/no plan for screen "s1"/);
    await writePlan(ws, planIn(CANDIDATE));
    const file = join(ws, "screens/s1/plan.json");
    const text = readFileSync(file, "utf8");
    const seedLine = text.slice(0, text.indexOf('"seed"')).split("\n").length;
    writeFileSync(file, text.replace(/"seed": 3/, '"seed": true'));
    const bad = await readPlan(ws, "s1").catch((e: InputError) => e);
    expect(bad).toBeInstanceOf(InputError);
    expect((bad as InputError).format()).toMatch(new RegExp(`plan\\.json:${seedLine}: seed: `));
    writeFileSync(file, text.replace(/"seed": 3,/, '"seed": 3'));
    const broken = await readPlan(ws, "s1").catch((e: InputError) => e);
    expect((broken as InputError).format()).toMatch(
      new RegExp(`plan\\.json:${seedLine + 1}: invalid JSON: `),
    );
  });
});
