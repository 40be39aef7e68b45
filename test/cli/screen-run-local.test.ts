import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fireIn, runFire } from "../helpers/cli.js";
import { planReportCheck, SCREEN_FIXTURES } from "../helpers/screens.js";

const F = SCREEN_FIXTURES;

describe("fire screen run --runner local", () => {
  it("installs each arm's hook in a fresh working copy and scores what the hook caused", async () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-run-local-cli-"));
    const plan = planReportCheck(ws, "loc", [
      "--arms",
      "baseline,policy,always-verify",
      "--attempts",
      "1",
    ]);
    expect(plan.status).toBe(0);
    const r = runFire([
      "screen",
      "run",
      "loc",
      "--runner",
      "local",
      "--concurrency",
      "3",
      "--command",
      `sh ${join(F, "local-agent.sh")} {arm}-{replicate}-{task}`,
      "-w",
      ws,
    ]);
    expect(r.stdout).toContain("screen loc: 6/6 done (0 from an earlier run), 0 failed");
    // recorded, so the workbench's Runs screen resumes the run the same way
    expect(
      JSON.parse(readFileSync(join(ws, "screens/loc/run-settings.json"), "utf8")),
    ).toMatchObject({
      runner: "local",
      command: `sh ${join(F, "local-agent.sh")} {arm}-{replicate}-{task}`,
      concurrency: 3,
    });
    const trial = join(ws, "screens/loc/jobs/local/r1/policy/standin_report-sales");
    const settings = JSON.parse(
      readFileSync(join(trial, "work/.claude/settings.local.json"), "utf8"),
    );
    expect(settings.hooks.PreToolUse[0].hooks[0].command).toContain(
      join(ws, "screens/loc/arms/policy"),
    );
    expect(
      existsSync(join(ws, "screens/loc/jobs/local/r1/baseline/standin_report-sales/work/.claude")),
    ).toBe(false);

    const rep = JSON.parse((await fireIn(["report", "loc", "--json", "-w", ws])).stdout);
    expect(rep.unscorable).toEqual([]);
    expect(rep.arms.policy.all.passAt1).toBe(1);
    expect(rep.arms.baseline.all.passAt1).toBe(0);
    // always-verify blocks the stop too (a generic instruction), so its agent also "passes"
    expect(rep.arms["always-verify"].all.passAt1).toBe(1);
    expect(rep.funnel.policy.marginal.fired).toBe(2);
    const c = rep.contrasts.find(
      (x: { arm: string; comparator: string; cohort: string }) =>
        x.arm === "policy" && x.comparator === "always-verify" && x.cohort === "all",
    );
    expect(c).toMatchObject({ nTasks: 2, delta: 0, p: 1 });
  }, 120_000);
});
