import { afterAll, describe, expect, it } from "vitest";
import { DEMO_ATTEMPTS } from "../helpers/demo.js";
import { demoCopy, KEY, renderApp } from "./helpers.js";

const ws = demoCopy();
afterAll(() => ws.cleanup());

/** Opens the failed serve-static-docs attempt through / search. */
async function openFailedServe(app: ReturnType<typeof renderApp>) {
  await app.see(DEMO_ATTEMPTS);
  await app.press("/");
  await app.see("type to search");
  await app.press(..."hAXff60".split(""));
  await app.see("serve-static-docs__hAXff60");
  await app.press(KEY.enter);
  await app.see("serve-static-docs__hAXff60-0103688c · serve-static-docs · fail");
}

describe("Attempt screen", () => {
  it("shows the timeline with commands and where the reference candidate fires (at the stop)", async () => {
    const app = renderApp(ws.dir);
    await openFailedServe(app);
    expect(app.frame()).toContain("tool_call");
    // Jump forward through markers to the end: the reference service-persistence policy fires.
    for (let i = 0; i < 12; i++) await app.press("n");
    await app.see("stop        stop", "F fires: ref-service-persistence");
    app.unmount();
  });

  it("marks the attached launch (D) and the capability probe (C); n/p jump between them", async () => {
    const app = renderApp(ws.dir);
    await openFailedServe(app);
    const selected = () =>
      app
        .frame()
        .split("\n")
        .find((l) => l.startsWith("▸")) ?? "";
    await app.press("n");
    await app.see("▸  14 D  tool_call   $ python3 -m http.server 8080", "D detector:");
    await app.press("n");
    await app.see("▸  17 C  tool_call", "C capability: capability.earlier-success");
    await app.press("p");
    await app.see("▸  14 D ");
    expect(selected()).toContain("http.server");
    app.unmount();
  });

  it("expands the verifier output with v", async () => {
    const app = renderApp(ws.dir);
    await openFailedServe(app);
    await app.press("v");
    await app.see("verifier output", "lines 1–");
    await app.press(KEY.esc);
    await app.see("markers here");
    app.unmount();
  });
});
