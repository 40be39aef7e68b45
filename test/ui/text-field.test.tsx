import { describe, expect, it } from "vitest";
import { demoCopiesPerTest, KEY, renderApp, waitFor } from "./helpers.js";

/**
 * Issue 13, point 5: a real text field — a cursor that moves by character and word, Home/End
 * (and Ctrl-A/Ctrl-E, as its help says), and a long value scrolled sideways to keep the cursor
 * in view instead of showing only its tail. Typed into the `/` search field at 60 columns.
 */
const { workspace } = demoCopiesPerTest();

const KEYS = {
  left: "\u001B[D",
  home: "\u001B[H",
  end: "\u001B[F",
  ctrlA: "\u0001",
  ctrlE: "\u0005",
  altRight: "\u001B[1;3C",
  ctrlLeft: "\u001B[1;5D",
} as const;
const WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu";

describe("text field", () => {
  it("scrolls a long value to the cursor; Home/End, Ctrl-A/E and word moves edit in place", async () => {
    const app = renderApp(workspace(), { columns: 60, rows: 20 });
    await app.see("k/n");
    await app.press("/");
    await app.see("type to search");
    // the field's row, without the cursor's inverse video
    const field = () =>
      (
        app
          .frame()
          .split("\n")
          .find((l) => l.startsWith("│ / ")) ?? ""
      )
        .replace(/\u001B\[[0-9;]*m/g, "")
        .slice(4)
        .replace(/\s*│$/, "");
    await app.press(...WORDS.split(""));
    expect(WORDS.length).toBeGreaterThan(56); // longer than the field
    // at the end: the tail, cut on the left
    await waitFor(() => field().includes("lambda mu"), app.frame);
    expect(field()).toMatch(/^…/);
    expect(field()).not.toContain("alpha");
    // Home: the head, cut on the right
    await app.press(KEYS.home);
    await waitFor(() => field().startsWith("alpha beta"), app.frame);
    expect(field()).toMatch(/…$/);
    expect(field()).not.toContain("lambda mu");
    // two words right, then a letter: inserted after "beta", not appended
    await app.press(KEYS.altRight, KEYS.altRight, "X");
    await waitFor(() => field().startsWith("alpha betaX gamma"), app.frame);
    // End and a letter: at the end
    await app.press(KEYS.end, "Z");
    await waitFor(() => field().endsWith("lambda muZ"), app.frame);
    // a word left, a letter: before "muZ"
    await app.press(KEYS.ctrlLeft, "Y");
    await waitFor(() => field().endsWith("lambda YmuZ"), app.frame);
    // Ctrl-A / Ctrl-E (the help writes Home/Ctrl-A, End/Ctrl-E)
    await app.press(KEYS.ctrlA, "<");
    await waitFor(() => field().startsWith("<alpha betaX"), app.frame);
    await app.press(KEYS.ctrlE, ">");
    await waitFor(() => field().endsWith("YmuZ>"), app.frame);
    // Left then a letter goes before the last character
    await app.press(KEYS.left, "!");
    await waitFor(() => field().endsWith("YmuZ!>"), app.frame);
    await app.press(KEY.esc);
    await app.gone("type to search");
    app.unmount();
  });
});
