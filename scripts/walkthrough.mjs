// Captures the workbench walkthrough (docs/workbench.md): the built workbench (dist/) rendered
// with ink-testing-library at 120×36 without colour, on a temp copy of the demo workspace, keys
// typed one by one and each frame taken once the text it waits for is on screen.
// Usage (after npm run build):
//   node scripts/walkthrough.mjs                       print every frame
//   node scripts/walkthrough.mjs --write docs/workbench.md   replace each block after a
//                                                      `<!-- frame: NAME -->` line
//   node scripts/walkthrough.mjs --check docs/workbench.md   exit 1 when a block differs
// The check ignores what changes from run to run by design: ISO times and hex digests of 12 or
// more digits (a frozen portfolio's frozenAt and the manifest hash that covers it).
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
const shots = new Map();
const shot = (name) => shots.set(name, frame());
const ENTER = "\r";
const ESC = "\u001B";

await see("95 attempts", " 0 clusters", "8 candidates");
shot("1 triage");
await press("/", ..."hAXff60");
await see("serve-static-docs__hAXff60");
await press(ENTER);
await see("serve-static-docs__hAXff60-0103688c · serve-static-docs");
await press(..."nnnn");
// the fourth marker (n stops at each): a frame taken before the last n is drawn differs
await see("▸  20 F  stop");
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
await see("Enter lists the task's attempts", "× ref-binary-equivalence");
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

/** Runs of three or more blank rows inside a frame become one `⋮ (N blank rows)` line. */
function cut(text) {
  const lines = text.split("\n");
  while (lines.length > 0 && lines.at(-1).trim() === "") lines.pop();
  const out = [];
  for (let i = 0; i < lines.length; ) {
    let j = i;
    while (j < lines.length && lines[j].trim() === "") j++;
    if (j - i >= 3) out.push(`⋮ (${j - i} blank rows)`);
    else out.push(...lines.slice(i, j));
    if (j < lines.length) out.push(lines[j]);
    i = j + 1;
  }
  return out.join("\n");
}

const [mode, file] = process.argv.slice(2);
if (mode === "--write" || mode === "--check") {
  const doc = readFileSync(file, "utf8");
  const unknown = [];
  const next = doc.replace(/^<!-- frame: (.+?) -->\n```text\n[\s\S]*?^```$/gm, (_, name) => {
    if (!shots.has(name)) unknown.push(name);
    return `<!-- frame: ${name} -->\n\`\`\`text\n${cut(shots.get(name) ?? "")}\n\`\`\``;
  });
  if (unknown.length > 0) {
    process.stderr.write(`${file}: no frame named ${unknown.join(", ")}\n`);
    process.exitCode = 1;
  } else if (mode === "--write") {
    writeFileSync(file, next);
    process.stdout.write(`wrote ${file}\n`);
  } else {
    const mask = (t) =>
      t
        .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>")
        .replace(/\b[0-9a-f]{12,}\b/g, "<hex>");
    if (mask(next) !== mask(doc)) {
      // the first line that differs, so a frame taken differently (e.g. under load) shows
      const [a, b] = [mask(doc).split("\n"), mask(next).split("\n")];
      const i = a.findIndex((line, k) => line !== b[k]);
      process.stderr.write(
        `${file} is stale: run npm run docs:walkthrough\n  line ${i + 1}, file:  ${a[i]}\n  line ${i + 1}, built: ${b[i]}\n`,
      );
      process.exitCode = 1;
    }
  }
} else {
  for (const [name, text] of shots) process.stdout.write(`=== ${name}\n${text}\n`);
}
