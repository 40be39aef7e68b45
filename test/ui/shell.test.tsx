import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { render } from "ink-testing-library";
import { afterAll, describe, expect, it } from "vitest";
import { App } from "../../src/ui/App.js";
import { SCREENS } from "../../src/ui/contexts/screens.js";
import { themeFor } from "../../src/ui/theme.js";
import { DEMO, DEMO_ATTEMPTS } from "../helpers/demo.js";
import { demoCopy, KEY, renderApp, waitFor } from "./helpers.js";

const ws = demoCopy();
afterAll(() => ws.cleanup());

describe("workbench shell", () => {
  it("the header puts each count next to its unit: exclusions are attempts", async () => {
    const app = renderApp(ws.dir, { columns: 200, rows: 30 });
    await app.see(DEMO_ATTEMPTS);
    const m =
      /(\d+) attempts \((\d+) excluded\) · (\d+) tasks: (\d+) reachable, (\d+) unsolved, (\d+) solved/.exec(
        app.frame(),
      );
    expect(m).not.toBeNull();
    const [, attempts, excluded, tasks, ...byStatus] = m!.map(Number);
    expect(attempts).toBe(DEMO.attempts);
    expect(tasks).toBe(DEMO.tasks);
    expect(excluded).toBeLessThanOrEqual(DEMO.attempts);
    expect(byStatus.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(tasks!);
    expect(app.frame()).not.toMatch(/solved · \d+ excluded/);
    app.unmount();
  });

  it("Tab and Shift-Tab cycle the seven screens, number keys jump", async () => {
    const app = renderApp(ws.dir);
    await app.see(DEMO_ATTEMPTS);
    await app.press(KEY.tab);
    await app.see("No attempt open");
    await app.press("\u001B[Z"); // Shift-Tab
    await app.see("filters:");
    await app.press("6");
    await app.see("Frozen portfolios");
    await app.press(KEY.tab);
    await app.see("no planned run screens");
    await app.press(KEY.tab);
    await app.see("filters:");
    expect(SCREENS.map((s) => s.key).join("")).toBe("1234567");
    app.unmount();
  });

  it("/ finds a task by fuzzy text and opens it in Triage", async () => {
    const app = renderApp(ws.dir);
    await app.see(DEMO_ATTEMPTS);
    await app.press("6", "/");
    await app.see("type to search");
    await app.press(..."sqlite ordrs".split(""));
    await app.see("task      recover-sqlite-orders");
    const sel = () =>
      app
        .frame()
        .split("\n")
        .find((l) => l.includes("▸")) ?? "";
    for (let i = 0; i < 10 && !sel().includes("task      recover-sqlite-orders"); i++)
      await app.press(KEY.down);
    await app.press(KEY.enter);
    await app.see("filters:");
    await waitFor(() => sel().includes("recover-sqlite-orders"), app.frame);
    app.unmount();
  });

  it("follows a terminal resize", async () => {
    const r = render(<App dir={ws.dir} theme={themeFor({ NO_COLOR: "1" })} />);
    const frame = () => r.lastFrame() ?? "";
    await waitFor(() => frame().includes(DEMO_ATTEMPTS), frame);
    expect(
      Math.max(
        ...frame()
          .split("\n")
          .map((l) => l.length),
      ),
    ).toBeGreaterThan(80);
    Object.defineProperty(r.stdout, "columns", { value: 60, configurable: true });
    r.stdout.emit("resize");
    await waitFor(
      () =>
        Math.max(
          ...frame()
            .split("\n")
            .map((l) => l.length),
        ) <= 60,
      frame,
    );
    r.unmount();
  });

  it("a bad config is a message line naming file and line, not a crash", async () => {
    const bad = demoCopy();
    writeFileSync(
      join(bad.dir, "fire.config.json"),
      '{\n  "sources": ["traces/"],\n  "passTreshold": 1\n}\n',
    );
    const app = renderApp(bad.dir);
    await app.see(
      "error: reading workspace: fire.config.json:3:",
      "passTreshold",
      "could not be read",
    );
    // still alive: keys work
    await app.press("?");
    await app.see("Keys · Esc closes");
    app.unmount();
    bad.cleanup();
  });

  it("NO_COLOR leaves every semantic token empty", () => {
    const plain = themeFor({ NO_COLOR: "1" });
    expect([plain.accent, plain.bad, plain.good, plain.warn, plain.info, plain.muted]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(themeFor({}).bad).toBe("red");
  });
});
