import { describe, expect, it } from "vitest";
import { demoCopiesPerTest, KEY, renderTerminal, waitFor } from "./helpers.js";

/**
 * Issue 13, point 6 ("no garbling on resize"): the wide views — the side-by-side compare and
 * the pager — follow a real terminal resize (no size prop), below the minimum and back.
 */
const { workspace } = demoCopiesPerTest();

const terminal = renderTerminal;

async function openFailedServe(t: ReturnType<typeof terminal>) {
  await t.see("k/n");
  await t.press("/", ..."hAXff60".split(""));
  await t.see("serve-static-docs__hAXff60");
  await t.press(KEY.enter);
  await t.see("markers here");
}

describe("resizing the wide views", () => {
  it("the compare view re-lays its two columns at each width and survives the minimum", async () => {
    const t = terminal(workspace(), 120, 30);
    await openFailedServe(t);
    await t.press("c");
    await t.see("shared steps", "· pass");
    expect(t.fits(120, 30)).toBe(true);
    t.resize(60, 16);
    await waitFor(() => t.fits(60, 16), t.frame);
    // both sides still there, split at the new width
    expect(t.frame()).toMatch(/^ {2}serve-static-\S+ · fail │ serve-static-\S+ · pass$/m);
    await t.see("shared steps");
    t.resize(30, 8);
    await t.see("needs at least 40×10");
    expect(t.fits(30, 8)).toBe(true);
    t.resize(100, 24);
    await t.see("shared steps", "· pass");
    await waitFor(() => t.fits(100, 24), t.frame);
    // Esc still goes back to the attempt the compare was opened from
    await t.press(KEY.esc);
    await t.see("markers here", "serve-static-docs__hAXff60-0103688c");
    t.r.unmount();
  });

  it("the pager re-wraps its text at a narrower width, none of it cut", async () => {
    const t = terminal(workspace(), 120, 30);
    await openFailedServe(t);
    await t.press("t", "w"); // the task text, wrapped
    await t.see("task text · serve-static-docs", "· wrap");
    const words = (s: string) => s.split(/\s+/).filter(Boolean);
    const shown = () =>
      t
        .frame()
        .split("\n")
        .slice(3, -4)
        .flatMap((l) => words(l));
    const text = shown().join(" ");
    expect(text).toMatch(/^The project in \/app\/docs/);
    t.resize(40, 16);
    await waitFor(() => t.fits(40, 16) && shown().join(" ") === text, t.frame);
    // re-wrapped: more rows than at 120, every word of the text still on screen
    expect(t.frame().split("\n").length).toBeGreaterThan(8);
    // below the minimum and back: still reading
    t.resize(30, 8);
    await t.see("needs at least 40×10");
    t.resize(40, 16);
    await t.see("task text · serve-static-docs", "· wrap");
    await t.press(KEY.esc);
    await t.see("markers here");
    t.r.unmount();
  });
});
