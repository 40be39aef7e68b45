import { afterAll, describe, expect, it } from "vitest";
import { loadDecisions } from "../../src/core/mine/decisions.js";
import { demoCopy, KEY, renderApp } from "./helpers.js";

const ws = demoCopy();
afterAll(() => ws.cleanup());

describe("Mechanisms: decision history and undo", () => {
  it("H shows the decisions newest first; u undoes the newest and the clusters follow", async () => {
    const app = renderApp(ws.dir, { columns: 120, rows: 30 });
    await app.see("95 attempts");
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
});
