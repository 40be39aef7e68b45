import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ATTEMPTS } from "../helpers/demo.js";
import { demoCopy, KEY, renderApp, writeDraft } from "./helpers.js";

const ws = demoCopy();
// A draft to edit: the reference service-persistence mechanics under a new identity.
let draft = "";
beforeAll(() => {
  draft = writeDraft(ws.dir);
});
afterAll(() => ws.cleanup());

async function openDraft(app: ReturnType<typeof renderApp>) {
  await app.see(DEMO_ATTEMPTS);
  await app.press("4");
  await app.see("my-serve@1");
  expect(
    app
      .frame()
      .split("\n")
      .find((l) => l.startsWith("▸")),
  ).toContain("draft      my-serve@1");
}

describe("Candidates screen", () => {
  it("lists candidates by status with lineage, drafts first", async () => {
    const app = renderApp(ws.dir);
    await openDraft(app);
    expect(app.frame()).toContain("frozen     ref-service-persistence@1");
    app.unmount();
  });

  it("edits an eligibility pattern with a live preview, then saves atomically", async () => {
    const app = renderApp(ws.dir, { columns: 100, rows: 30 });
    await openDraft(app);
    await app.press(KEY.enter);
    await app.see("eligibility.anyOf.0.pattern", "preview positives");
    const routedBefore = Number(/routed (\d+)/.exec(app.frame())?.[1]);
    expect(routedBefore).toBeGreaterThan(2);
    await app.press(KEY.enter);
    await app.see("eligibility.anyOf.0.pattern:");
    // Make the first phrase route any text with "the": the preview updates as the field changes.
    await app.press(KEY.ctrlU, ..."\\bthe\\b".split(""));
    await app.see(`routed ${routedBefore}`, "saved   positives");
    const routedAfter = Number(/preview .* routed (\d+)/.exec(app.frame())?.[1]);
    expect(routedAfter).toBeGreaterThan(routedBefore);
    // negatives: before the edit none fired; with the broad phrase some do.
    expect(app.frame()).toMatch(/saved {3}positives \d+\/\d+ · negatives 0\//);
    expect(app.frame()).toMatch(/preview positives \d+\/\d+ · negatives [1-9]\d*\//);
    await app.press(KEY.enter);
    await app.see("modified (Ctrl-S saves", "Enter edit field");
    await app.press(KEY.ctrlS);
    await app.see("saved candidates/drafts/my-serve.yaml");
    expect(readFileSync(draft, "utf8")).toContain("pattern: '\\bthe\\b'");
    expect(readFileSync(draft, "utf8")).toContain("# yaml-language-server"); // comments kept
    app.unmount();
  });

  it("refuses an invalid regex in the preview and never writes it", async () => {
    const app = renderApp(ws.dir, { columns: 100, rows: 30 });
    await openDraft(app);
    await app.press(KEY.enter);
    await app.see("eligibility.anyOf.0.pattern");
    await app.press(KEY.enter);
    await app.see("eligibility.anyOf.0.pattern:");
    await app.press(KEY.ctrlU, "(", KEY.enter);
    await app.see("✗ eligibility.anyOf.0", "Enter edit field");
    await app.press(KEY.ctrlS);
    await app.see("error: saving candidates/drafts/my-serve.yaml");
    expect(readFileSync(draft, "utf8")).not.toContain("pattern: (");
    app.unmount();
  });

  it("promotes with a note, and freezing an unscreened candidate is refused with the reason", async () => {
    const app = renderApp(ws.dir);
    await openDraft(app);
    await app.press("P");
    await app.see("promote note:");
    await app.press(..."worth a run".split(""), KEY.enter);
    await app.see("promote my-serve@1: done");
    await app.see("screening  my-serve@1");
    expect(readFileSync(draft, "utf8")).toContain("promoted to screening: worth a run");
    await app.press("F");
    await app.see("portfolio name:");
    await app.press(KEY.enter);
    await app.see("refused: no promising screen");
    // the status line has one row: ! reads the whole message in the pager, wrapped
    await app.press("!");
    await app.see("message", "lines 1–1 of 1");
    await app.press("w");
    await app.see("· wrap");
    const rows = app.frame().split("\n");
    const at = rows.findIndex((l) => l.startsWith("error: ") || l.startsWith("freeze "));
    expect(at).toBeGreaterThan(0);
    await app.press(KEY.esc);
    await app.gone("· wrap");
    app.unmount();
  });
});
