import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fireIn } from "../helpers/cli.js";
import { DEMO_ATTEMPTS } from "../helpers/demo.js";
import { RECORDED } from "../real-clients/cases.js";
import { demoCopy, KEY, renderApp } from "./helpers.js";

const ws = demoCopy();
const deployment = "ref-deployment-preservation@1";

beforeAll(async () => {
  // The reference portfolio, frozen (forced: the demo has no screens of it yet) …
  const refs = [deployment, "ref-service-persistence@1"];
  const f = await fireIn(
    ["freeze", "--name", "ref", "--force", "--reason", "field test", ...refs, "-w", ws.dir],
    { cwd: ws.dir },
  );
  expect([f.status, f.stderr]).toEqual([0, ""]);
  // … and the hook logs the real clients wrote with it (one denied `rm -rf site` each), in
  // the workspace's .fire/; the Codex one again inside a Harbor trial whose verifier failed.
  for (const c of ["claude-good-probe", "codex-good-probe"]) {
    mkdirSync(join(ws.dir, ".fire", c), { recursive: true });
    copyFileSync(join(RECORDED, c, "hook-log.jsonl"), join(ws.dir, ".fire", c, "hook-log.jsonl"));
  }
  const trial = join(ws.dir, ".fire", "harbor", "serve__t1");
  mkdirSync(join(trial, "agent"), { recursive: true });
  copyFileSync(
    join(RECORDED, "codex-good-probe", "hook-log.jsonl"),
    join(trial, "agent", "fire-hook-log.jsonl"),
  );
  writeFileSync(
    join(trial, "result.json"),
    JSON.stringify({
      task_name: "serve",
      trial_name: "serve__t1",
      verifier_result: { rewards: { reward: 0 } },
    }),
  );
});
afterAll(() => ws.cleanup());

describe("hook report in the workbench", () => {
  it("Portfolio l: per rule firings, denies, outcomes; Enter links every session", async () => {
    const app = renderApp(ws.dir, { columns: 140, rows: 36 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("6");
    await app.see("ref", "✓ hashes verified");
    await app.press("l");
    await app.see("hook report of portfolio ref", "3 log file(s)", "policy/rule");
    // every rule of the portfolio is a row, the ones that never fired too
    expect(app.frame()).toContain("ref-service-persistence@1/");
    for (let i = 0; i < 20 && !app.frame().includes(`▸ ${deployment}/`); i++) await app.press("j");
    await app.see(`▸ ${deployment}/`);
    const row = app
      .frame()
      .split("\n")
      .find((l) => l.includes(`▸ ${deployment}/`))!;
    // three denies (two clients, the trial's copy), one session failed its verifier, two unknown
    expect(row).toMatch(/enforce +3 +3 +0 +\S+ +1 fail, 2 unknown/);
    expect(app.frame()).toContain("outcomes of the sessions it fired in: 1 fail, 2 unknown");
    await app.press(KEY.enter);
    await app.see(`${deployment}/`, "fired in 3 session(s):");
    expect(app.frame()).toMatch(/serve__t1\/agent\/fire-hook-log\.jsonl:\d+ session \S+ ×1 → fail/);
    expect(app.frame()).toMatch(/claude-good-probe\/hook-log\.jsonl:\d+ session .* → unknown/);
    await app.press(KEY.esc);
    await app.see(`▸ ${deployment}/`, "policy/rule");
    await app.press(KEY.esc);
    await app.see("✓ hashes verified", "manifest sha256");
    app.unmount();
  });

  it("Screens d: each candidate's field screen beside its replay and run screens", async () => {
    const app = renderApp(ws.dir, { columns: 140, rows: 36 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("5");
    await app.see("a routing audit", "d field");
    await app.press("d");
    await app.see(`${deployment}`, "fired in 3/3 sessions");
    const row = app
      .frame()
      .split("\n")
      .find((l) => l.includes(deployment))!;
    expect(row).toContain("firings 3 · denies 3");
    expect(row).toContain("outcomes 1 fail, 2 unknown");
    // a candidate that was never deployed says so
    expect(app.frame()).toMatch(/ref-latex-final-log@1 +not in the hook logs/);
    for (let i = 0; i < 20 && !app.frame().includes(`▸ ${deployment}`); i++) await app.press("j");
    await app.press(KEY.enter);
    await app.see(`${deployment} in the field`, "policy/rule", `${deployment}/`);
    await app.press(KEY.esc);
    await app.see("fired in 3/3 sessions");
    app.unmount();
  });
});
