import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runFire } from "../helpers/cli.js";
import { DEMO, DEMO_ATTEMPTS } from "../helpers/demo.js";
import { REPO_ROOT } from "../helpers/paths.js";
import { demoCopy, KEY, renderApp } from "./helpers.js";

const ws = demoCopy();
beforeAll(() => {
  // A run screen with the paper's Table 9 (Sol) counts, imported by the real CLI.
  const csv = join(REPO_ROOT, "test/fixtures/screens/table9-sol.csv");
  const r = runFire(["screen", "import", "sol", csv, "--workspace", ws.dir]);
  expect(r.status).toBe(0);
});
afterAll(() => ws.cleanup());

describe("Screens screen", () => {
  it("shows the routing audit matrix of the reference portfolio", async () => {
    const app = renderApp(ws.dir, { columns: 100, rows: 30 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("5");
    await app.see("a routing audit", `routed of ${DEMO.tasks} tasks`);
    expect(app.frame()).toMatch(/serve-static-docs +(· )*●/);
    expect(app.frame()).toContain("multi-family 0");
    app.unmount();
  });

  it("runs a replay screen and shows its verdict and evidence", async () => {
    const app = renderApp(ws.dir, { columns: 100, rows: 30 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("5");
    await app.see("a routing audit");
    await app.press("p");
    await app.see("not screened");
    // an overlay does not lose the screen's place
    await app.press("?");
    await app.see("Keys", "Esc closes"); // at 30 rows the help scrolls
    await app.press(KEY.esc);
    await app.see("not screened");
    // select ref-service-persistence and run its replay screen
    for (let i = 0; i < 10 && !/▸ ref-service-persistence/.test(app.frame()); i++)
      await app.press("j");
    await app.see("▸ ref-service-persistence@1");
    await app.press("r");
    await app.see("replay screen of ref-service-persistence@1", "verdict:", "replay report");
    // the candidate is named once: in the report's first line, not again in the pager's title
    expect(app.frame().split("replay screen of ref-service-persistence@1")).toHaveLength(2);
    expect(existsSync(join(ws.dir, "screens/replay/ref-service-persistence-v1/screen.json"))).toBe(
      true,
    );
    await app.press(KEY.esc);
    await app.see("▸ ref-service-persistence@1");
    expect(app.frame()).toMatch(
      /ref-service-persistence@1 +(promising|inert|over-broad|inconclusive) · positives \d+\/\d+/,
    );
    // a verdict action from here: retiring a frozen reference candidate is refused, file unchanged
    const file = join(ws.dir, "candidates/reference/service-persistence.yaml");
    const before = readFileSync(file, "utf8");
    await app.press("R");
    await app.see("retire reason:");
    await app.press(..."no lineage".split(""), KEY.enter);
    await app.see(
      "error: retire ref-service-persistence@1: candidates/reference/service-persistence",
    );
    expect(readFileSync(file, "utf8")).toBe(before);
    app.unmount();
  });

  it("opens a run screen's report with the Unicode forest plot", async () => {
    const app = renderApp(ws.dir, { columns: 100, rows: 40 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("5");
    await app.see("a routing audit");
    await app.press("s");
    await app.see("sol", "result rows");
    await app.press(KEY.enter);
    await app.see("Screen sol");
    for (let i = 0; i < 40 && !app.frame().includes("Forest plot"); i++) await app.press("j");
    await app.see("Forest plot (95% CI, ● = Δ)");
    app.unmount();
  });
});
