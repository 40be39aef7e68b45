import { readFileSync } from "node:fs";
import { render } from "ink-testing-library";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { App } from "../../src/ui/App.js";
import { themeFor } from "../../src/ui/theme.js";
import { DEMO_ATTEMPTS } from "../helpers/demo.js";
import { demoCopiesPerTest, KEY, renderApp, typeKeys, waitFor } from "./helpers.js";

/** The structured editor: add / remove, the unsaved-changes confirm, errors in full. */
/** A workspace with a draft to edit (the reference service-persistence under a new id). */
const workspace = demoCopiesPerTest().withDraft;

type Rendered = ReturnType<typeof renderApp>;
const SIZE = { columns: 120, rows: 36 };
const onDisk = (file: string) => parse(readFileSync(file, "utf8"));

async function openEditor(app: Rendered) {
  await app.see(DEMO_ATTEMPTS);
  await app.press("4");
  await app.see("draft      my-serve@1");
  await app.press(KEY.enter);
  await app.see("eligibility.anyOf.0.pattern", "preview positives");
}

const selected = (app: Rendered) =>
  app
    .frame()
    .split("\n")
    .find((l) => l.startsWith("▸ "))
    ?.split(/\s+/)[1];

/** Moves the editor's cursor down to the field `label`, one row (and frame) at a time. */
async function moveTo(app: App, label: string) {
  for (let i = 0; i < 80 && selected(app) !== label; i++) {
    const was = selected(app);
    await app.press("j");
    await waitFor(() => selected(app) !== was, app.frame);
  }
  await app.see(`▸ ${label} `);
}

/** Picks the menu option containing `text` (j until it is selected, then Enter). */
async function pick(app: App, text: string) {
  await app.see(text);
  for (let i = 0; i < 6 && !app.frame().includes(`▸ ${text}`); i++) await app.press("j");
  await app.see(`▸ ${text}`);
  await app.press(KEY.enter);
}

describe("structured editor", () => {
  it("adds an eligibility pattern and a condition, and saves them to the file", async () => {
    const { dir, draft } = workspace();
    const app = renderApp(dir, SIZE);
    await openEditor(app);
    await app.press("a");
    await app.see("add where the cursor is:", "condition in behavior");
    await pick(app, "pattern in eligibility.anyOf");
    await app.see("eligibility.anyOf pattern (regex):");
    await app.press(..."\\bstays? up\\b".split(""), KEY.enter);
    await app.see("▸ eligibility.anyOf.3 ", "modified (Ctrl-S saves");
    await moveTo(app, "rules.0.message");
    await app.press("a");
    await pick(app, "condition in rules.0.when");
    await app.press(..."status: ok".split(""), KEY.enter);
    await app.see("▸ rules.0.when.status");
    await app.press(KEY.ctrlS);
    await app.see("saved candidates/drafts/my-serve.yaml");
    const saved = onDisk(draft);
    expect(saved.eligibility.anyOf.at(-1)).toBe("\\bstays? up\\b");
    expect(saved.rules[0].when).toMatchObject({ flag: "launched", status: "ok" });
    app.unmount();
  });

  it("copies a rule, removes a condition and the copy; a bad condition is refused", async () => {
    const { dir, draft } = workspace();
    const app = renderApp(dir, SIZE);
    await openEditor(app);
    await moveTo(app, "rules.0.id");
    await app.press("a");
    await pick(app, "rule: a copy of rules.0");
    await app.see("▸ rules.1.id", "detach-and-probe-2");
    // remove the copy's trigger condition, then the copy itself
    await moveTo(app, "rules.1.when.flag");
    await app.press("x");
    await app.see("remove (innermost first):", "condition rules.1.when.flag", "rule rules.1");
    await app.press(KEY.enter);
    await app.gone("rules.1.when.flag");
    await app.press("x");
    await pick(app, "rule rules.1");
    await app.gone("rules.1.id");
    // the last rule cannot go
    await moveTo(app, "rules.0.action");
    await app.press("x");
    await pick(app, "rule rules.0");
    await app.see("a candidate needs at least one rule");
    // a condition the schema refuses: the reason, nothing added
    await app.press("a");
    await pick(app, "condition in rules.0.when");
    await app.press(..."exitCode: soon".split(""), KEY.enter);
    await app.see("condition: exitCode");
    await app.press("a");
    await pick(app, "condition in rules.0.when");
    await app.press(..."unset: detached".split(""), KEY.enter);
    await app.see("▸ rules.0.when.unset");
    await app.press(KEY.ctrlS);
    await app.see("saved candidates/drafts/my-serve.yaml");
    const saved = onDisk(draft);
    expect(saved.rules).toHaveLength(1);
    expect(saved.rules[0].when).toMatchObject({ flag: "launched", unset: "detached" });
    expect(saved.rules[0].when).not.toHaveProperty("exitCode");
    app.unmount();
  });

  it("removes an eligibility pattern with x; the file keeps the others in order", async () => {
    const { dir, draft } = workspace();
    const before = onDisk(draft).eligibility.anyOf;
    expect(before).toHaveLength(3);
    const app = renderApp(dir, SIZE);
    await openEditor(app);
    await moveTo(app, "eligibility.anyOf.1.pattern");
    await app.press("x");
    await app.see("remove (innermost first):", "pattern eligibility.anyOf.1");
    await pick(app, "pattern eligibility.anyOf.1");
    await app.see("modified (Ctrl-S saves");
    await app.gone("eligibility.anyOf.2.pattern");
    await app.press(KEY.ctrlS);
    await app.see("saved candidates/drafts/my-serve.yaml");
    expect(onDisk(draft).eligibility.anyOf).toEqual([before[0], before[2]]);
    app.unmount();
  });

  it("unsaved changes ask before Esc, a screen switch and quit drop them", async () => {
    const { dir, draft } = workspace();
    const before = readFileSync(draft, "utf8");
    let quits = 0;
    const r = render(
      <App dir={dir} size={SIZE} theme={themeFor({ NO_COLOR: "1" })} onQuit={() => quits++} />,
    );
    const frame = () => r.lastFrame() ?? "";
    const app = {
      frame,
      see: (...t: string[]) => waitFor(() => t.every((x) => frame().includes(x)), frame),
      gone: (t: string) => waitFor(() => !frame().includes(t), frame),
      press: (...keys: string[]) => typeKeys(r.stdin, ...keys),
    } as unknown as Rendered;
    await openEditor(app);
    await moveTo(app, "rules.0.at");
    await app.press(KEY.enter, KEY.ctrlU, ..."tool".split(""), KEY.enter);
    await app.see("modified (Ctrl-S saves");
    // Esc asks; Esc again stays, with the edit
    await app.press(KEY.esc);
    await app.see("Unsaved changes to my-serve.yaml. s save · d drop · Esc stay", "Esc/n stay");
    await app.press(KEY.esc);
    await app.gone("Unsaved changes");
    await app.see("modified (Ctrl-S saves", "▸ rules.0.at");
    // a screen switch asks too, and k keeps the text for when we come back
    await app.press("1");
    await app.see("s save · d drop · k keep for later · Esc stay");
    await app.press("k");
    await app.see("filters:");
    await app.press("4");
    await app.see("modified (Ctrl-S saves", "rules.0.at                   tool");
    // quit asks; d drops and quits, the file never changed
    await app.press("q");
    await app.see("Unsaved changes to my-serve.yaml.");
    expect(quits).toBe(0);
    await app.press("d");
    await waitFor(() => quits === 1, frame);
    expect(readFileSync(draft, "utf8")).toBe(before);
    r.unmount();
  });

  it("with unsaved changes the footer says 1–7 and Tab ask, not that they switch", async () => {
    const { dir } = workspace();
    const app = renderApp(dir, { columns: 300, rows: 36 }); // wide: the whole footer shows
    await openEditor(app);
    await app.see("1–7 screens", "Tab next");
    await moveTo(app, "rules.0.at");
    await app.press(KEY.enter, KEY.ctrlU, ..."tool".split(""), KEY.enter);
    await app.see("modified (Ctrl-S saves", "1–7 Tab leave (asks)", "/ search");
    const footer = app.frame().split("\n").at(-1) ?? "";
    expect(footer).toContain("leave (asks)");
    expect(footer).not.toContain("1–7 screens");
    expect(footer).not.toContain("Tab next");
    app.unmount();
  });

  it("s in the confirm saves through the validated path and then closes", async () => {
    const { dir, draft } = workspace();
    const app = renderApp(dir, SIZE);
    await openEditor(app);
    await moveTo(app, "rules.0.at");
    await app.press(KEY.enter, KEY.ctrlU, ..."tool".split(""), KEY.enter);
    await app.press(KEY.esc);
    await app.see("Unsaved changes to my-serve.yaml.");
    await app.press("s");
    await app.see("saved candidates/drafts/my-serve.yaml", "family / lineage");
    expect(onDisk(draft).rules[0].at).toBe("tool");
    app.unmount();
  });

  it("shows every error in full, wrapped, and refuses to save them", async () => {
    const { dir, draft } = workspace();
    const before = readFileSync(draft, "utf8");
    const app = renderApp(dir, { columns: 60, rows: 30 });
    await openEditor(app);
    await moveTo(app, "rules.0.at");
    await app.press(KEY.enter, KEY.ctrlU, ..."later".split(""), KEY.enter);
    await moveTo(app, "rules.0.action");
    await app.press(KEY.enter, KEY.ctrlU, ..."shout".split(""), KEY.enter);
    await app.see("✗ rules.0.at", "✗ rules.0.action");
    // a long error is wrapped over rows, not cut at the width
    const rows = app.frame().split("\n");
    const start = rows.findIndex((l) => l.startsWith("✗ rules.0.action"));
    expect(rows[start + 1]).toMatch(/^ {2}\S/);
    expect(rows.every((l) => l.length <= 60)).toBe(true);
    await app.press(KEY.ctrlS);
    await app.see("error: saving candidates/drafts/my-serve.yaml");
    expect(readFileSync(draft, "utf8")).toBe(before);
    // E reads them all in the pager, file and line named
    await app.press("E");
    await app.see("errors in my-serve.yaml", "my-serve.yaml:");
    await app.press(KEY.esc);
    await app.see("✗ rules.0.action");
    app.unmount();
  });
});
