import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { DEMO, DEMO_ATTEMPTS } from "../helpers/demo.js";
import { demoCopiesPerTest, KEY, renderApp, selectedRow, waitFor } from "./helpers.js";

/** Issue 13, point 3: Esc goes back where you came from; every list keeps its place. */
const { workspace } = demoCopiesPerTest();

type Rendered = ReturnType<typeof renderApp>;
const selected = selectedRow;
/** The rows of a task's attempt list (`▸ fail    <id> …`). */
const ATTEMPT_ROW = /^[▸ ] (pass|fail|unknown|error|timeout)\S*\s+(\S+)/;
const attemptRows = (app: Rendered) =>
  app
    .frame()
    .split("\n")
    .filter((l) => ATTEMPT_ROW.test(l));
const idOf = (row: string) => ATTEMPT_ROW.exec(row)?.[2] ?? "";

/** Opens the first task's attempt list and selects its second attempt; returns both ids. */
async function secondAttempt(app: Rendered): Promise<[string, string]> {
  await app.see(DEMO_ATTEMPTS);
  await app.press(KEY.enter);
  await app.see("+ pass · - fail");
  const rows = attemptRows(app);
  expect(rows.length).toBeGreaterThanOrEqual(2);
  await app.press("j");
  await waitFor(() => attemptRows(app)[1]?.startsWith("▸") === true, app.frame);
  return [idOf(rows[0]!), idOf(rows[1]!)];
}

describe("navigation stack", () => {
  it("Esc on an attempt opened from a task's list returns to that list, on that attempt", async () => {
    const app = renderApp(workspace(), { columns: 120, rows: 30 });
    const [, second] = await secondAttempt(app);
    await app.press(KEY.enter);
    await app.see(`${second} · `, "markers here");
    await app.press(KEY.esc);
    await app.see("+ pass · - fail");
    expect(idOf(selected(app))).toBe(second);
    // and Esc there goes back to the task list (the drill-down's own back)
    await app.press(KEY.esc);
    await app.see("filters:", "k/n");
    await app.gone("+ pass · - fail");
    app.unmount();
  });

  it("a screen switch (1 or Tab) keeps the drill-down and its cursor", async () => {
    const app = renderApp(workspace(), { columns: 120, rows: 30 });
    const [, second] = await secondAttempt(app);
    await app.press("4");
    await app.see("family / lineage");
    await app.gone("+ pass · - fail");
    await app.press("1");
    await app.see("+ pass · - fail");
    expect(idOf(selected(app))).toBe(second);
    // Tab round the seven screens lands on the same drill-down
    for (let i = 0; i < 7; i++) await app.press(KEY.tab);
    await app.see("+ pass · - fail");
    expect(idOf(selected(app))).toBe(second);
    app.unmount();
  });

  it("the Mechanisms cursor survives a screen switch, and d drafts from that cluster", async () => {
    const dir = workspace();
    const app = renderApp(dir, { columns: 120, rows: 36 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("3", "l");
    await app.see("labels (", "point  family");
    // the detail line under the list names the selected cluster's id
    const clusterId = () => /^(c-[0-9a-f]+) /m.exec(app.frame())?.[1];
    const first = clusterId();
    expect(first).toBeDefined();
    await app.press("j", "j", "j");
    await waitFor(() => clusterId() !== first, app.frame);
    const chosen = clusterId()!;
    const row = selected(app);
    expect(row).toMatch(/\S+\s+\d+\s+\d+ (stop|tool|prompt)\s+[a-z]/); // it has a family
    await app.press("1");
    await app.see("filters:");
    await app.gone("point  family");
    await app.press("3");
    await app.see("point  family");
    expect(clusterId()).toBe(chosen);
    expect(selected(app)).toBe(row);
    await app.press("d");
    await app.see("drafted candidates/drafts/", "family / lineage");
    const file = /drafted (candidates\/drafts\/\S+\.yaml)/.exec(app.frame())?.[1];
    expect(file).toBeDefined();
    const drafted = parse(readFileSync(join(dir, file!), "utf8"));
    expect(drafted.lineage.clusters).toEqual([chosen]);
    app.unmount();
  });

  it("Screens keeps its tab, the replay list's cursor and the audit's cell across switches", async () => {
    const app = renderApp(workspace(), { columns: 120, rows: 36 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("5", "p");
    await app.see("not screened");
    const first = selected(app);
    await app.press("j", "j");
    await waitFor(() => selected(app) !== first && selected(app) !== "", app.frame);
    const replayRow = selected(app);
    await app.press("1");
    await app.see("filters:");
    await app.gone("not screened");
    await app.press("5");
    await app.see("not screened");
    expect(selected(app)).toBe(replayRow);
    // the audit tab: a cell away from the first, kept too
    await app.press("a");
    await app.see(`routed of ${DEMO.tasks} tasks`, "Enter lists the task's attempts");
    const cell = () => /\n(\S+ × \S+: (?:routed|not routed))/.exec(app.frame())?.[1];
    const start = cell();
    await app.press("j", "j", "l");
    await waitFor(() => cell() !== undefined && cell() !== start, app.frame);
    const moved = cell();
    await app.press("4");
    await app.see("family / lineage");
    await app.press("5");
    await app.see(`routed of ${DEMO.tasks} tasks`);
    await waitFor(() => cell() !== undefined, app.frame);
    expect(cell()).toBe(moved);
    app.unmount();
  });
});
