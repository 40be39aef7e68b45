import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { DEMO_ATTEMPTS } from "../helpers/demo.js";
import { demoCopiesPerTest, KEY, renderApp } from "./helpers.js";

/** `y` reads a candidate in the pager; `e` edits it in $EDITOR (a real process) and checks it. */
const scripts = mkdtempSync(join(tmpdir(), "fire-editor-"));
/** An $EDITOR: a shell script that edits the file it is given with sed. */
function editor(name: string, sed: string): string {
  const file = join(scripts, `${name}.sh`);
  writeFileSync(file, `#!/bin/sh\nsed -i '${sed}' "$1"\n`);
  chmodSync(file, 0o755);
  return `sh ${file}`;
}
const saved = { visual: process.env.VISUAL, editor: process.env.EDITOR };
beforeAll(() => {
  delete process.env.VISUAL;
});
afterAll(() => {
  rmSync(scripts, { recursive: true, force: true });
  if (saved.visual !== undefined) process.env.VISUAL = saved.visual;
  if (saved.editor !== undefined) process.env.EDITOR = saved.editor;
  else delete process.env.EDITOR;
});
const workspace = demoCopiesPerTest().withDraft;

async function onDraft(app: ReturnType<typeof renderApp>) {
  await app.see(DEMO_ATTEMPTS);
  await app.press("4");
  await app.see("draft      my-serve@1");
}

describe("candidate text in the pager and in $EDITOR", () => {
  it("y reads the candidate's YAML in the pager, where / finds text", async () => {
    const { dir } = workspace();
    const app = renderApp(dir, { columns: 120, rows: 36 });
    await onDraft(app);
    await app.press("y");
    await app.see("candidates/drafts/my-serve.yaml · draft", "id: my-serve", "lines 1–");
    await app.press("/", ..."detach-and-probe".split(""), KEY.enter);
    await app.see("“detach-and-probe” 1/1");
    await app.press(KEY.esc);
    await app.see("draft      my-serve@1");
    app.unmount();
  });

  it("e edits the file in $EDITOR and saves it when it checks out", async () => {
    const { dir, draft } = workspace();
    process.env.EDITOR = editor("retitle", 's/^title: .*/title: "Edited in EDITOR"/');
    const app = renderApp(dir, { columns: 120, rows: 36 });
    await onDraft(app);
    await app.press("e");
    await app.see("saved candidates/drafts/my-serve.yaml", "Edited in EDITOR");
    expect(parse(readFileSync(draft, "utf8")).title).toBe("Edited in EDITOR");
    app.unmount();
  });

  it("an $EDITOR edit that does not check out is kept unsaved in the editor, errors shown", async () => {
    const { dir, draft } = workspace();
    const before = readFileSync(draft, "utf8");
    process.env.EDITOR = editor("break", "s/^  - id: detach-and-probe/  - id: [unclosed/");
    const app = renderApp(dir, { columns: 120, rows: 36 });
    await onDraft(app);
    await app.press("e");
    await app.see("does not check out; kept unsaved in the editor", "modified (Ctrl-S saves");
    await app.see("✗ ");
    expect(readFileSync(draft, "utf8")).toBe(before);
    // nothing lost: the broken text is the editor's unsaved text
    await app.press("y");
    await app.see("my-serve.yaml (unsaved)", "lines 1–");
    await app.press("/", ..."[unclosed".split(""), KEY.enter);
    await app.see("“[unclosed” 1/1", "- id: [unclosed");
    await app.press(KEY.esc);
    // fixed in $EDITOR from the editor, it loads again (fields back) and saves
    process.env.EDITOR = editor("fix", "s/^  - id: \\[unclosed/  - id: fixed-rule/");
    await app.press("e");
    await app.see("rules.0.id                   fixed-rule");
    await app.press(KEY.ctrlS);
    await app.see("saved candidates/drafts/my-serve.yaml");
    expect(parse(readFileSync(draft, "utf8")).rules[0].id).toBe("fixed-rule");
    app.unmount();
  });
});
