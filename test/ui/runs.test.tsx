import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ATTEMPTS } from "../helpers/demo.js";
import { planReportCheckIn, SCREEN_FIXTURES } from "../helpers/screens.js";
import { demoCopy, KEY, renderApp } from "./helpers.js";

const ws = demoCopy();
const gate = join(ws.dir, "go");

beforeAll(async () => {
  await planReportCheckIn(ws.dir, "wb", 3);
  // how the workbench runs a screen never run before: the workspace's screen.run
  const config = JSON.parse(readFileSync(join(ws.dir, "fire.config.json"), "utf8"));
  config.screen = {
    run: {
      runner: "local",
      command: `sh ${join(SCREEN_FIXTURES, "gated-agent.sh")} ${gate} {arm}-{replicate}-{task}`,
      concurrency: 1,
    },
  };
  writeFileSync(join(ws.dir, "fire.config.json"), JSON.stringify(config));
});
afterAll(() => ws.cleanup());

describe("Runs screen: the schedule, start / stop / resume a run", () => {
  it("shows the plan's trials, runs them with progress, stops and resumes", async () => {
    const app = renderApp(ws.dir, { columns: 120, rows: 30 });
    await app.see(DEMO_ATTEMPTS, "7 Runs");
    await app.press("7");
    await app.see("wb", "not started", "4 trials · 4 pending · wb");
    await app.press(KEY.enter);
    await app.see("rep", "task", "arm", "policy", "status");
    const trialRows = () =>
      app
        .frame()
        .split("\n")
        .filter((l) => /standin\//.test(l));
    await app.see("standin/report-sales", "standin/fix-tests", "report-check@1");
    expect(trialRows()).toHaveLength(4);
    expect(trialRows().filter((l) => l.includes("baseline"))).toHaveLength(2);
    expect(trialRows().every((l) => /pending$/.test(l.trimEnd()))).toBe(true);
    // start: the first trial waits on the gate, so the run is mid-trial when stopped
    await app.press("s");
    await app.see("1 running", "running (x stops)", "run wb", "(Esc cancels)");
    expect(trialRows().filter((l) => /running$/.test(l.trimEnd()))).toHaveLength(1);
    await app.press("x");
    await app.see("run wb: cancelled");
    await app.see("4 trials · 4 pending · wb");
    expect(existsSync(join(ws.dir, "screens/wb/run-settings.json"))).toBe(true);
    // resume with the gate open: every trial runs, the policy arm's hook blocks the Stop
    writeFileSync(gate, "");
    await app.press("s");
    await app.see("screen wb: 4/4 done (0 from an earlier run), 0 failed");
    await app.see("4 trials · 2 pass · 2 fail · wb");
    for (const l of trialRows())
      expect(l.trimEnd()).toMatch(l.includes("baseline") ? /✗ .*fail$/ : /✓ .*pass$/);
    // a second start finds everything done and skips it
    await app.press("s");
    await app.see("screen wb: 4/4 done (4 from an earlier run), 0 failed");
    await app.press(KEY.esc);
    await app.see("local: 4 unit(s) done, 0 failed; 4 result row(s) stored");
    const rows = readFileSync(join(ws.dir, "screens/wb/results.jsonl"), "utf8").trim().split("\n");
    expect(rows).toHaveLength(4);
    app.unmount();
  });
});
