import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runHarborScreen } from "../../../src/core/screening/run/harbor.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { planReportCheckIn, SCREEN_FIXTURES } from "../../helpers/screens.js";

/**
 * On a cloud environment the run refuses before any Harbor job when the hook payload cannot
 * be built: a missing standalone hook (an installed fire without its bundle) or an arm whose
 * candidate files are gone. Nothing is started: no job folder.
 */
const STANDIN = `${process.execPath} ${join(REPO_ROOT, "test/helpers/harbor-standin.mjs")}`;
const noLoad = async () => ({ attempts: [], errors: [] });

describe("fire screen run --env <cloud>: no payload, no run", () => {
  const base = (ws: string) => ({
    workspace: ws,
    name: "p",
    fireBin: [process.execPath],
    vars: { dataset: join(SCREEN_FIXTURES, "dataset"), model: "scripted" },
    harborBin: STANDIN,
    env: "daytona",
    loadAttempts: noLoad,
  });

  it("refuses a missing standalone hook before any job", async () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-preflight-"));
    await planReportCheckIn(ws, "p");
    await expect(
      runHarborScreen({ ...base(ws), hookFile: join(ws, "gone/hook.standalone.mjs") }),
    ).rejects.toThrow(/cannot deliver the hook into Harbor's containers: .*gone.* is missing/);
    expect(existsSync(join(ws, "screens/p/jobs"))).toBe(false);
  }, 60_000);

  it("refuses an arm whose candidate files are gone before any job", async () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-preflight-"));
    await planReportCheckIn(ws, "p");
    rmSync(join(ws, "screens/p/arms/policy"), { recursive: true, force: true });
    await expect(runHarborScreen(base(ws))).rejects.toThrow(/refusing to run: arm policy: /);
    expect(existsSync(join(ws, "screens/p/jobs"))).toBe(false);
  }, 60_000);
});
