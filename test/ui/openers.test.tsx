import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeResults } from "../../src/core/screening/results/results-file.js";
import type { ScreenRow } from "../../src/core/screening/results/row.js";
import { loadWorkspace } from "../../src/core/workspace/load.js";
import { DEMO, DEMO_ATTEMPTS } from "../helpers/demo.js";
import { demoCopy, KEY, renderApp, writeDraft } from "./helpers.js";

/** Every count or row that names attempts opens them; Esc returns to where it was opened. */
const ws = demoCopy();
let funnelIds: string[] = [];
beforeAll(async () => {
  writeDraft(ws.dir);
  // A run screen whose rows were imported from traces (they carry attempt ids): two arms,
  // the policy arm's firing recorded on some of them.
  const { attempts } = await loadWorkspace(ws.dir);
  const picked = attempts.slice(0, 8);
  const rows: ScreenRow[] = picked.map((a, i) => ({
    task: a.taskId,
    arm: i < 4 ? "baseline" : "policy",
    attempt: i,
    pass: a.outcome === "pass",
    fired: i >= 4 && i % 2 === 0,
    attemptId: a.id,
  }));
  funnelIds = rows.filter((r) => r.arm === "policy" && r.fired).map((r) => r.attemptId!);
  await writeResults(join(ws.dir, "screens/traced/results.jsonl"), rows);
});
afterAll(() => ws.cleanup());

describe("openers", () => {
  it("an evidence row of a cluster opens the attempt it quotes; Esc returns to the rows", async () => {
    const app = renderApp(ws.dir, { columns: 120, rows: 36 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("3", "l");
    await app.see("labels (", "point  family");
    await app.press("v");
    await app.see("evidence of c-", "Enter open");
    const row = app
      .frame()
      .split("\n")
      .find((l) => l.includes("▸ #"));
    const id = row?.trim().split(/\s+/)[2] ?? "";
    expect(id).toMatch(/\S+-[0-9a-f]{8}$/);
    await app.press(KEY.enter);
    await app.see(`${id} · `);
    await app.press(KEY.esc);
    await app.see("evidence of c-", `▸ #`);
    app.unmount();
  });

  it("the editor preview's counts open their attempts, and the unsaved edit survives", async () => {
    const app = renderApp(ws.dir, { columns: 120, rows: 36 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("4");
    await app.see("my-serve@1");
    await app.press(KEY.enter);
    await app.see("eligibility.anyOf.0.pattern", "preview positives");
    const m = /preview positives (\d+)\/(\d+) · negatives (\d+)\/(\d+)/.exec(app.frame());
    expect(m).not.toBeNull();
    const [fired, all] = [Number(m![1]), Number(m![2])];
    await app.press("p");
    await app.see(`preview positives ${fired}/${all}`);
    // the list holds the fired positives (or every positive when none fired)
    const count = fired > 0 ? fired : all;
    await app.see(fired > 0 ? `${fired} attempts fired` : `all ${all} attempts`);
    expect(
      app
        .frame()
        .split("\n")
        .filter((l) => /^[▸ ] [ *](pass|fail)/.test(l)),
    ).toHaveLength(count);
    // its footer says where Esc goes: back to the opener, not to Triage's task list
    expect(app.frame().split("\n").at(-1)).toContain("Esc back");
    expect(app.frame().split("\n").at(-1)).not.toContain("Esc tasks");
    await app.press(KEY.esc);
    await app.see("eligibility.anyOf.0.pattern", "preview positives");
    // an edit, then the negatives count: Esc comes back to the edited, unsaved text
    await app.press(KEY.enter, KEY.ctrlU, ..."\\bthe\\b".split(""), KEY.enter);
    await app.see("modified (Ctrl-S saves", "saved   positives");
    const neg = /preview positives \d+\/\d+ · negatives (\d+)\/(\d+)/.exec(app.frame());
    expect(Number(neg![1])).toBeGreaterThan(0);
    await app.press("n");
    await app.see(`preview negatives ${neg![1]}/${neg![2]} ·`, "attempts fired");
    await app.press(KEY.esc);
    await app.see("modified (Ctrl-S saves", "\\bthe\\b");
    app.unmount();
  });

  it("a routing-audit cell lists its task's attempts", async () => {
    const app = renderApp(ws.dir, { columns: 120, rows: 36 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("5");
    await app.see("a routing audit", `routed of ${DEMO.tasks} tasks`);
    await app.press("j", "l");
    await app.see("Enter lists the task's attempts");
    const cell = /\n(\S+) × (\S+): (routed|not routed)/.exec(app.frame());
    expect(cell).not.toBeNull();
    const [, task, cand, how] = cell!;
    await app.press(KEY.enter);
    await app.see(`${task} · ${how} by ${cand} ·`);
    expect(app.frame()).toContain(`${task}__`);
    await app.press(KEY.esc);
    await app.see(`${task} × ${cand}: ${how}`);
    app.unmount();
  });

  it("a run screen's funnel row lists the attempts that reached the stage", async () => {
    const app = renderApp(ws.dir, { columns: 120, rows: 36 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("5", "s");
    await app.see("traced", "8 result rows");
    await app.press("f");
    await app.see("funnel of traced", "policy", "fired");
    for (let i = 0; i < 10 && !/▸ policy +fired/.test(app.frame()); i++) await app.press("j");
    expect(app.frame()).toMatch(new RegExp(`▸ policy +fired +${funnelIds.length}\n`));
    await app.press(KEY.enter);
    await app.see(`traced · policy · fired ${funnelIds.length}`);
    for (const id of funnelIds) expect(app.frame()).toContain(id);
    await app.press(KEY.esc);
    await app.see("funnel of traced", "▸ policy");
    app.unmount();
  });

  it("a run screen's report opens in the pager, where / finds text", async () => {
    const app = renderApp(ws.dir, { columns: 120, rows: 36 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("5", "s");
    await app.see("traced", "8 result rows");
    await app.press(KEY.enter);
    await app.see("run screen traced", "lines 1–");
    await app.press("/", ..."funnel".split(""), KEY.enter);
    await app.see("“funnel” 1/");
    await app.press(KEY.esc);
    await app.see("8 result rows");
    app.unmount();
  });
});
