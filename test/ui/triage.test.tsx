import { afterAll, describe, expect, it } from "vitest";
import { DEMO_ATTEMPTS } from "../helpers/demo.js";
import { demoCopy, KEY, renderApp } from "./helpers.js";

const ws = demoCopy();
afterAll(() => ws.cleanup());

describe("Triage screen", () => {
  it("lists the demo tasks reachable-first with counts in the header at 80×24", async () => {
    const app = renderApp(ws.dir);
    await app.see(DEMO_ATTEMPTS, "reachable");
    const lines = app.frame().split("\n");
    expect(lines.length).toBeLessThanOrEqual(24);
    expect(lines.every((l) => l.length <= 80)).toBe(true);
    // The first task row is a reachable (k/n with 0<k<n) task.
    const firstRow = lines.find((l) => l.startsWith("▸ "));
    expect(firstRow).toMatch(/◐ .* 1\/2 /);
    app.unmount();
  });

  it("filters by status and shows exclusions with reasons", async () => {
    const app = renderApp(ws.dir);
    await app.see(DEMO_ATTEMPTS);
    await app.press("f"); // reachable
    await app.see("status=reachable");
    await app.press("f"); // unsolved
    await app.see("status=unsolved");
    expect(app.frame()).not.toContain("◐ ");
    await app.press("f", "f", "f"); // solved, unscored, back to all
    await app.see("filters: none");
    // an attempt-level filter: only codex attempts count
    await app.press("t");
    await app.see("agent=");
    await app.press("x");
    await app.see("Excluded attempts", "provider_fault");
    app.unmount();
  });

  it("shows the selected exclusion's evidence (file:line or event)", async () => {
    const app = renderApp(ws.dir);
    await app.see(DEMO_ATTEMPTS);
    await app.press("x");
    await app.see("Excluded attempts", "evidence: ");
    expect(app.frame()).toMatch(/evidence: (?:\S+:\d+|event #\d+)/);
    app.unmount();
  });

  it("opens a task's attempts and an attempt with Enter", async () => {
    const app = renderApp(ws.dir);
    await app.see(DEMO_ATTEMPTS);
    await app.press(KEY.enter);
    await app.see("+ pass · - fail");
    expect(app.frame()).toMatch(/▸ +(fail|pass)/);
    await app.press(KEY.enter);
    // the header names "2 Attempt" on every screen: wait for the Attempt screen's own text
    await app.see("markers here");
    app.unmount();
  });
});
