import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fmtReward } from "../../src/core/app/present.js";
import { fireIn } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/paths.js";

let ws: string;
beforeEach(async () => {
  ws = await mkdtemp(join(tmpdir(), "fire-cli-attempts-"));
});
afterEach(async () => {
  await rm(ws, { recursive: true, force: true });
});

describe("fire attempts: rewards as people read them", () => {
  it("shows a partial reward in three decimals and keeps it whole in --json", async () => {
    // real SlopCodeBench checkpoints: 5 of 11 tests passed is 0.45454545454545453
    const imp = await fireIn([
      "import",
      join(REPO_ROOT, "test/fixtures/checkpoint-run-open-plan"),
      "--workspace",
      ws,
    ]);
    expect(imp.stderr).toBe("");
    expect(imp.status).toBe(0);
    const table = await fireIn(["attempts", "--workspace", ws]);
    const row = table.stdout.split("\n").find((l) => l.includes("eve_route_planner/checkpoint_1"));
    expect(row).toMatch(/\bfail\s+0\.455\s/);
    expect(table.stdout).not.toContain("0.4545");
    const json = await fireIn(["attempts", "--json", "--workspace", ws]);
    const rows = JSON.parse(json.stdout) as { taskId: string; reward: number }[];
    const r = rows.find((x) => x.taskId === "eve_route_planner/checkpoint_1")?.reward ?? 0;
    expect(r).toBeCloseTo(5 / 11, 12);
  });

  it("never rounds a non-zero reward to a zero, nor prints what is not a number", () => {
    expect(fmtReward(1)).toBe("1");
    expect(fmtReward(0)).toBe("0");
    expect(fmtReward(0.5)).toBe("0.5");
    expect(fmtReward(1 / 31)).toBe("0.032");
    expect(fmtReward(0.0004)).toBe("0.00040");
    expect(fmtReward(-0.25)).toBe("-0.25");
    // nor a failing one to a 1 (1245 of 1246 tests passed)
    expect(fmtReward(1245 / 1246)).toBe("0.999");
    expect(fmtReward(1 - 1e-9)).toBe("0.999");
    expect(fmtReward(Number.NaN)).toBe("–");
    expect(fmtReward(null)).toBe("–");
  });
});
