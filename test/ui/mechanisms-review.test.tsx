import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEMO_ATTEMPTS } from "../helpers/demo.js";
import { demoCopiesPerTest, KEY, renderApp, selectedRow, waitFor } from "./helpers.js";

/**
 * Issue 22, point 7 (and 1): failures kept for review are visible on Mechanisms, with what
 * the evidence found so far; drafting from them is refused; rename and merge-name replace
 * the pre-filled name when typed over (an arrow key first keeps it).
 */
const { workspace } = demoCopiesPerTest();

const KEYS = { end: "\u001B[F", right: "\u001B[C", left: "\u001B[D" } as const;

/** The name cell of the selected cluster row (the row, without cursor, mark and counts). */
const selectedName = (app: { frame(): string }) =>
  (/^▸\s+(.*?)\s{2,}\d+\s+\d+\s/.exec(selectedRow(app))?.[1] ?? "").trim();

/** The selected row of the review list (below the clusters' list, whose ▸ stays on its row). */
const reviewRow = (app: { frame(): string }) =>
  app
    .frame()
    .split("\n")
    .filter((l) => l.startsWith("▸"))
    .at(-1) ?? "";

async function labelled(dir: string) {
  const app = renderApp(dir, { columns: 120, rows: 30 });
  await app.see(DEMO_ATTEMPTS);
  await app.press("3");
  await app.see("Nothing mined yet");
  await app.press("l");
  await app.see("labels (", "point  family");
  return app;
}

describe("Mechanisms: needs review", () => {
  it("lists the needs-review failures below the clusters, opens one, refuses a draft", async () => {
    const dir = workspace();
    const app = await labelled(dir);
    // the selected cluster's evidence strength: confidence and facets
    await app.see("confidence 0.", "facets: ");
    // one row below the clusters, with the count of MineResult.review
    await waitFor(() => /needs review \(\d+\)/.test(app.frame()), app.frame);
    const n = Number(/needs review \((\d+)\)/.exec(app.frame())?.[1]);
    expect(n).toBeGreaterThan(0);
    await app.press("G");
    await waitFor(() => selectedRow(app).includes(`needs review (${n})`), app.frame);

    // drafting on the row is refused, and nothing is drafted
    await app.press("d");
    await app.see("review comes first");
    expect(existsSync(join(dir, "candidates/drafts"))).toBe(false);

    // Enter lists the attempts: task, kind, strongest suspect with its strength, evidence
    await app.press(KEY.enter);
    await app.see(`needs review (${n}) in scope, no mechanism named`);
    const rows = () =>
      app
        .frame()
        .split("\n")
        .filter((l) => /(procedural_loss|policy_addressable)/.test(l));
    await waitFor(() => rows().length > 0, app.frame);
    const seen = new Set<string>();
    for (let i = 0; i < n; i++) {
      await waitFor(() => /^▸ \S/.test(reviewRow(app)), app.frame);
      const r = reviewRow(app);
      expect(r).toMatch(/ (procedural_loss|policy_addressable) /);
      expect(r).toMatch(/(\(strength \d+\)|no suspect)/);
      expect(r).toMatch(/(capability|state|mechanism|fault|addressable) \w+: \S/);
      seen.add(r);
      await app.press("j");
    }
    expect(seen.size).toBe(n);
    // some failure of the demo has a suspected mechanism (below the naming threshold)
    expect([...seen].some((r) => /\(strength \d+\)/.test(r))).toBe(true);
    await app.press("g");
    // d in the list is refused as well
    await app.press("d");
    await app.see("review comes first");

    // Enter opens the selected attempt (its task is the row's first cell)
    const task = reviewRow(app).replace(/^▸\s*/, "").split(/\s+/)[0] ?? "";
    expect(task.length).toBeGreaterThan(0);
    await app.press(KEY.enter);
    await waitFor(() => new RegExp(`· ${task} · fail`).test(app.frame()), app.frame);
    app.unmount();
  });
});

describe("Mechanisms: rename and merge-name replace the pre-filled name", () => {
  it("typing replaces the name; an arrow key first keeps it and appends", async () => {
    const dir = workspace();
    const app = await labelled(dir);
    const before = selectedName(app);
    expect(before.length).toBeGreaterThan(0);

    // typed over the pre-filled name: the cluster shows exactly the typed name
    await app.press("r");
    await app.see("new name:");
    await app.press(..."shell state lost".split(""), KEY.enter);
    await waitFor(() => selectedName(app) === "shell state lost", app.frame);

    // an arrow key first keeps the name: typing appends at the end
    await app.press("r");
    await app.see("new name:");
    await app.press(KEYS.right, ..." again".split(""), KEY.enter);
    await waitFor(() => selectedName(app) === "shell state lost again", app.frame);

    // Backspace clears the selected name; what follows is the whole name
    await app.press("r");
    await app.see("new name:");
    await app.press(KEY.backspace, ..."xy".split(""), KEY.enter);
    await waitFor(() => selectedName(app) === "xy", app.frame);

    // ← puts the cursor at the start of the kept name
    await app.press("r");
    await app.see("new name:");
    await app.press(KEYS.left, ..."w".split(""), KEY.enter);
    await waitFor(() => selectedName(app) === "wxy", app.frame);

    // merge: the merged cluster takes the name typed over the marked one's
    await app.press("m", "j", "m");
    await app.see("merged name: wxy");
    await app.press(..."one mechanism".split(""), KEY.enter);
    await app.gone("merged name:");
    const file = join(dir, "mining/decisions.json");
    const read = () =>
      JSON.parse(readFileSync(file, "utf8")).decisions as { op: string; name?: string }[];
    await waitFor(() => read().length === 5, app.frame);
    const decisions = read();
    expect(decisions.map((d) => d.op)).toEqual(["rename", "rename", "rename", "rename", "merge"]);
    expect(decisions.map((d) => d.name)).toEqual([
      "shell state lost",
      "shell state lost again",
      "xy",
      "wxy",
      "one mechanism",
    ]);
    // the merged cluster's row (not the status line's "merge … → one mechanism")
    await waitFor(() => /^. {3}one mechanism {2,}\d/m.test(app.frame()), app.frame);
    expect(app.frame()).not.toContain("wxy");
    app.unmount();
  });
});
