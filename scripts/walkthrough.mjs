// Captures the README's workbench walkthrough: the built workbench (dist/) rendered with
// ink-testing-library at 120×36 without colour, on a temp copy of the demo workspace, keys
// typed one by one and each frame printed once the text it waits for is on screen.
// Usage: npm run build && node scripts/walkthrough.mjs > /tmp/walkthrough.txt
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { render } from "ink-testing-library";
import { createElement } from "react";
import { App } from "../dist/ui/App.js";
import { themeFor } from "../dist/ui/theme.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dir = mkdtempSync(join(tmpdir(), "fire-walkthrough-"));
for (const p of ["fire.config.json", "traces", "candidates"])
  cpSync(join(root, p), join(dir, p), { recursive: true });
// A run screen for the Screens tab: the paper's Table 9 (Sol) counts, imported by the CLI.
const csv = join(root, "test/fixtures/screens/table9-sol.csv");
spawnSync("node", [
  join(root, "dist/cli/main.js"),
  "screen",
  "import",
  "sol",
  csv,
  "--workspace",
  dir,
]);

const app = render(
  createElement(App, { dir, size: { columns: 120, rows: 36 }, theme: themeFor({ NO_COLOR: "1" }) }),
);
const frame = () => app.lastFrame() ?? "";
const tick = () => new Promise((r) => setTimeout(r, 10));
async function see(...texts) {
  const start = Date.now();
  while (!texts.every((t) => frame().includes(t))) {
    if (Date.now() - start > 60_000) throw new Error(`not seen: ${texts}\n${frame()}`);
    await tick();
  }
}
async function press(...keys) {
  for (const k of keys) {
    app.stdin.write(k);
    await new Promise((r) => setImmediate(r));
  }
}
/** j until the selected row (▸) contains `text`. */
async function select(text) {
  for (let i = 0; i < 60; i++) {
    const row = frame()
      .split("\n")
      .find((l) => l.includes("▸"));
    if (row?.includes(text)) return;
    const before = frame();
    await press("j");
    const start = Date.now();
    while (frame() === before && Date.now() - start < 2000) await tick();
  }
  throw new Error(`no row with ${text}\n${frame()}`);
}
const shot = (name) => process.stdout.write(`=== ${name}\n${frame()}\n`);
const ENTER = "\r";
const ESC = "\u001B";

await see("95 attempts", "8 candidates");
shot("1 triage");
await press("/", ..."hAXff60");
await see("serve-static-docs__hAXff60");
await press(ENTER);
await see("serve-static-docs__hAXff60-0103688c · serve-static-docs");
await press(..."nnnn");
shot("2 attempt");
await press("c");
await see("first divergence");
shot("2 compare");
await press(ESC);
await see("serve-static-docs__hAXff60-0103688c · serve-static-docs");
await press("3", "l");
await see("labels (", "point  family");
await select("detached");
shot("3 mechanisms");
await press("v");
await see("evidence of c-");
shot("3 evidence");
await press(ESC);
await see("detectors:");
await press("d");
await see("drafted candidates/drafts/draft-");
await see("draft      draft-");
shot("4 candidates");
await press(ENTER);
await see("eligibility.anyOf.0.pattern", "preview positives");
await press(ENTER, "\u0015", ..."\\bthe\\b", ENTER);
await see("modified (Ctrl-S saves", "saved   positives");
shot("4 editor");
await press("n");
await see("preview negatives");
shot("4 negatives");
await press(ESC);
await see("modified (Ctrl-S saves");
await press("a");
await see("add where the cursor is:");
shot("4 add");
await press(ESC);
await see("a add");
await press(ESC);
await see("Unsaved changes");
shot("4 confirm");
await press("d");
await see("family / lineage");
await press("5");
await see("a routing audit", "routed of");
await press("j", "j", "l");
await see("Enter lists the task's attempts");
shot("5 audit");
await press("p");
await see("not screened");
await select("draft-");
await press("r");
await see("replay screen of draft-", "verdict:");
shot("5 replay");
await press(ESC);
await see("not screened");
await press("s");
await see("sol", "result rows");
await press("f");
await see("funnel of sol");
shot("5 funnel");
await press(ESC);
await see("result rows");
await press(ENTER);
await see("run screen sol");
await press("/", ..."Forest", ENTER);
await see("“Forest” 1/");
shot("5 report");
await press(ESC);
await see("result rows");
await press("4");
await see("family / lineage");
await select("draft-");
await press("F");
await see("portfolio name:");
await press("\u0015", ..."demo", ENTER);
await see("portfolios/demo");
await press("6");
await see("Frozen portfolios");
shot("6 portfolio");
app.unmount();
rmSync(dir, { recursive: true, force: true });
