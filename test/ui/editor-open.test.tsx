import { describe, expect, it } from "vitest";
import { DEMO_ATTEMPTS } from "../helpers/demo.js";
import { demoCopiesPerTest, KEY, renderApp } from "./helpers.js";

const workspace = demoCopiesPerTest().withDraft;

describe("opening a candidate in the editor", () => {
  it("shows the file's fields at once; the preview follows when compiled and replayed", async () => {
    const { dir } = workspace();
    const app = renderApp(dir, { columns: 120, rows: 36 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("4");
    await app.see("draft      my-serve@1");
    await app.press(KEY.enter);
    await app.see("eligibility.anyOf.0.pattern", "preview positives");
    // a frame with the fields and no preview yet came first, saying the preview is coming
    const early = app.frames.find((f) => f.includes("eligibility.anyOf.0.pattern"));
    expect(early).toContain("preview: compiling and replaying…");
    expect(early).not.toContain("preview positives");
    expect(app.frame()).not.toContain("compiling and replaying");
    app.unmount();
  });
});
