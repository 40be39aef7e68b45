import { afterAll, describe, expect, it } from "vitest";
import { demoCopy, KEY, renderTerminal, waitFor } from "./helpers.js";

/**
 * Issue 22, point 3: the compare view states the decisive difference between a failed
 * attempt and its passing sibling above the side-by-side (core/app `siblingComparison`).
 */
const ws = demoCopy();
afterAll(() => ws.cleanup());

async function openCompare(t: ReturnType<typeof renderTerminal>, search: string) {
  await t.see("k/n");
  await t.press("/", ...search.split(""));
  await t.see(search);
  await t.press(KEY.enter);
  await t.see("markers here");
  await t.press("c");
  await t.see("shared steps");
}

describe("the compare view's evidence from the passing sibling", () => {
  it("states the decisive difference above the side-by-side, citing events on both sides", async () => {
    const t = renderTerminal(ws.dir, 120, 30);
    await openCompare(t, "hAXff60");
    await t.see("decisive difference from passing sibling", "→ service-persistence");
    const lines = t.frame().split("\n");
    const head = lines.findIndex((l) => l.includes("decisive difference from passing sibling"));
    const first = lines.findIndex((l) => /^1 ✱ the sibling launched the server detached/.test(l));
    const steps = lines.findIndex((l) => l.includes("shared steps"));
    // the block sits between the column heads and the aligned steps, best difference first
    expect(lines[head - 1]).toMatch(/· fail\s*│ .* · pass/);
    expect(first).toBe(head + 1);
    expect(steps).toBeGreaterThan(first);
    // the sentence cites the sibling's and this attempt's events (wrapped to a second row)
    const text = lines.slice(first, steps).join(" ").replace(/\s+/g, " ");
    expect(text).toMatch(/event 14: .*setsid/);
    expect(text).toContain("this one launched it as a background job of its own shell");
    expect(t.fits(120, 30)).toBe(true);
    // swapping the sides keeps the same reading (failed attempt vs passing sibling)
    await t.press("s");
    await waitFor(() => /· pass\s*│ .* · fail/.test(t.frame()), t.frame);
    expect(t.frame()).toContain("→ service-persistence");
    t.r.unmount();
  });

  it("says when no difference is decisive (needs review), and still fits a small terminal", async () => {
    // a failure of a split task whose sibling wrote the same file with other content
    const t = renderTerminal(ws.dir, 80, 20);
    await openCompare(t, "EuTCd24");
    await t.see("no decisive difference from passing sibling");
    expect(t.frame()).not.toContain("✱");
    expect(t.frame()).toMatch(/1 · both wrote \/app\/users\.csv/);
    expect(t.fits(80, 20)).toBe(true);
    t.r.unmount();
  });

  it("shows no sibling block when neither side passed", async () => {
    const t = renderTerminal(ws.dir, 120, 30);
    await t.see("k/n");
    // two failed attempts of a task: mark one, compare from the other
    await t.press("/", ..."flask-kv-store-api__P4ckhcq".split(""));
    await t.see("flask-kv-store-api__P4ckhcq");
    await t.press(KEY.enter);
    await t.see("markers here");
    await t.press("m");
    await t.press(KEY.esc);
    await t.press("/", ..."flask-kv-store-api__3B6i2sZ".split(""));
    await t.see("flask-kv-store-api__3B6i2sZ");
    await t.press(KEY.enter);
    await t.see("markers here");
    await t.press("c");
    await t.see("shared steps");
    expect(t.frame()).not.toContain("passing sibling");
    t.r.unmount();
  });
});
