import { afterAll, describe, expect, it } from "vitest";
import { loadDecisions } from "../../src/core/mine/decisions.js";
import { DEMO_ATTEMPTS } from "../helpers/demo.js";
import { demoCopy, KEY, renderApp, waitFor } from "./helpers.js";

const ws = demoCopy();
afterAll(() => ws.cleanup());

describe("Mechanisms: decision history and undo", () => {
  it("H shows the decisions newest first; u undoes the newest and the clusters follow", async () => {
    const app = renderApp(ws.dir, { columns: 120, rows: 30 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("3", "l");
    await app.see("clusters ·", "point  family");
    await app.press("H");
    await app.see("decision history (0)", "no cluster decisions yet");
    await app.press("r");
    await app.see("new name:");
    await app.press(KEY.ctrlU, ..."Server dies with the shell".split(""), KEY.enter);
    await app.see("▸   Server dies with the shell", "decision history (1)");
    expect(app.frame()).toMatch(/1\. rename \d+ attempts? → “Server dies with the shell”/);
    expect((await loadDecisions(ws.dir)).decisions).toHaveLength(1);

    await app.press("u");
    await app.see("undid: rename", "decision history (0)");
    await app.gone("▸   Server dies with the shell"); // the cluster has its own name again
    expect((await loadDecisions(ws.dir)).decisions).toHaveLength(0);
    await app.press("u");
    await app.see("no cluster decision to undo");
    app.unmount();
  });

  it("a merge is in the history and u takes it back: both clusters return with their members", async () => {
    const app = renderApp(ws.dir, { columns: 120, rows: 30 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("3", "l");
    await app.see("clusters ·", "point  family");
    const count = () => Number(/(\d+) clusters/.exec(app.frame())?.[1] ?? -1);
    const n = count();
    const selected = () =>
      app
        .frame()
        .split("\n")
        .find((l) => l.startsWith("▸")) ?? "";
    const first = selected();
    const members = (row: string) => Number(/\s(\d+)\s+\d+ (?:stop|tool|prompt)\s/.exec(row)?.[1]);
    await app.press("m", "j");
    await waitFor(() => selected() !== first, app.frame);
    const second = selected();
    await app.press("m");
    // the merge asks for the merged cluster's name; Enter keeps the marked one's
    await app.see("merged name:");
    await app.press(KEY.enter);
    await waitFor(() => count() === n - 1, app.frame);
    const before = (await loadDecisions(ws.dir)).decisions.length;
    await app.press("H");
    await app.see(
      `decision history (${before})`,
      `merge 2 clusters (${members(first) + members(second)} attempts)`,
    );
    await app.press("u");
    await app.see("undid: merge", `decision history (${before - 1})`);
    await waitFor(() => count() === n, app.frame);
    expect((await loadDecisions(ws.dir)).decisions).toHaveLength(before - 1);
    // both clusters are back, each with its own members
    const rows = app.frame().split("\n");
    expect(rows.some((l) => l.slice(2) === first.slice(2))).toBe(true);
    expect(rows.some((l) => l.slice(2) === second.slice(2))).toBe(true);
    app.unmount();
  });
});
