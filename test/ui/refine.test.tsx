import { afterAll, describe, expect, it } from "vitest";
import { DEMO_ATTEMPTS } from "../helpers/demo.js";
import { demoCopy, KEY, renderApp } from "./helpers.js";

const ws = demoCopy();
afterAll(() => ws.cleanup());

describe("Screens · replay: f refines the selected candidate", () => {
  it("names the command that makes a replay screen, then shows the search and closes on Esc", {
    timeout: 120_000,
  }, async () => {
    const app = renderApp(ws.dir, { columns: 170, rows: 32 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("5");
    await app.see("a routing audit");
    await app.press("p");
    await app.see("not screened");
    for (let i = 0; i < 10 && !/▸ ref-service-persistence/.test(app.frame()); i++)
      await app.press("j");
    await app.see("▸ ref-service-persistence@1");
    await app.press("f");
    await app.see("run `fire screen replay ref-service-persistence@1` first");
    await app.press("r");
    await app.see("replay report");
    await app.press(KEY.esc);
    await app.see("▸ ref-service-persistence@1");
    await app.press("f");
    await app.see("refine ref-service-persistence@1:", "replayed in");
    expect(app.frame()).toMatch(/before/);
    await app.press(KEY.esc);
    await app.see("▸ ref-service-persistence@1");
    app.unmount();
  });
});
