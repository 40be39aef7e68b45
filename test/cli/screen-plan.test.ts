import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fireIn } from "../helpers/cli.js";
import { fixture, REPO_ROOT } from "../helpers/paths.js";

const CANDIDATE = join(REPO_ROOT, "test/fixtures/screens/candidates/report-check.yaml");

function workspace(): string {
  const ws = mkdtempSync(join(tmpdir(), "fire-plan-cli-"));
  mkdirSync(join(ws, "traces"));
  cpSync(fixture("harbor-openclaw"), join(ws, "traces/harbor-openclaw"), { recursive: true });
  return ws;
}

describe("fire screen plan", () => {
  it("routes the real traces' tasks into eligible/silent and writes a hashed plan once", async () => {
    const ws = workspace();
    const args = [
      "screen",
      "plan",
      "--candidate",
      CANDIDATE,
      "--cohort",
      "eligible,silent",
      "--attempts",
      "2",
      "--seed",
      "7",
      "-w",
      ws,
    ];
    const r = await fireIn(args);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("14 task(s) (silent 8, eligible 6)");
    expect(r.stdout).toContain("140 cell(s)");
    const plan = JSON.parse(readFileSync(join(ws, "screens/report-check/plan.json"), "utf8"));
    expect(plan.seed).toBe(7);
    expect(plan.tasks.find((t: { id: string }) => t.id === "pinchbench/task-email-triage")).toEqual(
      {
        id: "pinchbench/task-email-triage",
        cohort: "eligible",
        matched: "report",
      },
    );
    expect(plan.hashes.plan).toMatch(/^[0-9a-f]{64}$/);
    const again = await fireIn(args);
    expect(again.status).toBe(2);
    expect(again.stderr).toContain("already has a plan");
  });

  it("splits a focused screen into positive (lineage tasks), nearby-negative and silent", async () => {
    const ws = workspace();
    const candidate = join(ws, "focused.yaml");
    writeFileSync(
      candidate,
      `${readFileSync(CANDIDATE, "utf8")}lineage:\n  attempts: [t3-data-pipeline-report__25HCHpE-1a97255f]\n`,
    );
    const r = await fireIn([
      "screen",
      "plan",
      "--candidate",
      candidate,
      "--cohort",
      "positive,nearby-negative,silent",
      "--arms",
      "baseline,policy,sham",
      "-w",
      ws,
    ]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("14 task(s) (silent 8, positive 1, nearby-negative 5)");
    const plan = JSON.parse(readFileSync(join(ws, "screens/report-check/plan.json"), "utf8"));
    expect(plan.tasks.find((t: { cohort: string }) => t.cohort === "positive").id).toBe(
      "clawbench/t3-data-pipeline-report",
    );
  });

  it("takes a task list with cohorts and rejects unknown arms", async () => {
    const ws = workspace();
    const list = join(ws, "tasks.txt");
    cpSync(join(REPO_ROOT, "test/fixtures/screens/tasks.txt"), list);
    const r = await fireIn([
      "screen",
      "plan",
      "--candidate",
      CANDIDATE,
      "--tasks",
      list,
      "--arms",
      "baseline,policy",
      "--name",
      "small",
      "-w",
      ws,
    ]);
    expect(r.status).toBe(0);
    const plan = JSON.parse(readFileSync(join(ws, "screens/small/plan.json"), "utf8"));
    expect(plan.tasks).toEqual([
      { id: "pinchbench/task-calendar", cohort: "nearby-negative" },
      { id: "pinchbench/task-email-triage", cohort: "eligible", matched: "report" },
    ]);
    expect(plan.schedule).toHaveLength(8);
    const bad = await fireIn([
      "screen",
      "plan",
      "--candidate",
      CANDIDATE,
      "--tasks",
      list,
      "--arms",
      "baseline,placebo",
      "-w",
      ws,
    ]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("not placebo");
  });
});
