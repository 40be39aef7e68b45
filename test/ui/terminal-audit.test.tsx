import { chmodSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { render } from "ink-testing-library";
import { afterAll, describe, expect, it } from "vitest";
import type { Event } from "../../src/core/model/attempt.js";
import { App } from "../../src/ui/App.js";
import { eventLine, ROW_TEXT_MAX } from "../../src/ui/data/markers.js";
import { themeFor } from "../../src/ui/theme.js";
import { DEMO, DEMO_ATTEMPTS } from "../helpers/demo.js";
import { fixture } from "../helpers/paths.js";
import { demoCopiesPerTest, KEY, renderApp, typeKeys, waitFor } from "./helpers.js";

// Defects found driving the built workbench in tmux; one test each.
const { workspace, withDraft } = demoCopiesPerTest();
const codexDirs: string[] = [];
afterAll(() => {
  for (const d of codexDirs) rmSync(d, { recursive: true, force: true });
});
/** The real Codex rollouts (no verifier): every attempt is `unknown` until given an outcome. */
/**
 * A real Harbor trial (OpenClaw, ATIF) whose first tool output is replaced by 50 MB of text
 * (700,000 lines holding tabs) and its second by 20,000 random bytes; outputCap keeps it all.
 */
function bigOutputWorkspace(): string {
  const dir = mkdtempSync(join(tmpdir(), "fire-ui-big-"));
  codexDirs.push(dir);
  const trial = join(dir, "traces/t2-add-tests-normalizer__BPeAoa2");
  cpSync(
    fixture("harbor-openclaw/clawbench-19-kimi2.6-2/t2-add-tests-normalizer__BPeAoa2"),
    trial,
    {
      recursive: true,
    },
  );
  const big = Array.from(
    { length: 700_000 },
    (_v, i) => `line ${i}\tcol\t${"x".repeat(60)}\n`,
  ).join("");
  let seed = 7;
  const binary = Array.from({ length: 20_000 }, () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return String.fromCharCode(seed % 256);
  }).join("");
  for (const rel of ["agent/trajectory.json", "steps/run/agent/trajectory.json"]) {
    const file = join(trial, rel);
    const t = JSON.parse(readFileSync(file, "utf8")) as {
      steps: { observation?: { results?: { content: unknown }[] } }[];
    };
    const results = t.steps.flatMap((st) => st.observation?.results?.slice(0, 1) ?? []);
    results[0]!.content = big;
    results[1]!.content = binary;
    chmodSync(file, 0o644);
    writeFileSync(file, JSON.stringify(t));
  }
  writeFileSync(join(dir, "fire.config.json"), JSON.stringify({ outputCap: 100_000_000 }));
  return dir;
}

function codexWorkspace(): string {
  const dir = mkdtempSync(join(tmpdir(), "fire-ui-audit-"));
  cpSync(fixture("codex-rollouts-redacted"), join(dir, "traces"), { recursive: true });
  codexDirs.push(dir);
  return dir;
}

describe("terminal audit: what a user hit in a real terminal", () => {
  it("Esc from an attempt opened via a searched task returns to that task's attempt list", async () => {
    const app = renderApp(workspace(), { columns: 120, rows: 30 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("/");
    await app.see("type to search");
    await app.press(..."t2-add-tests-normalizer".split(""));
    await app.see("▸ task      clawbench/t2-add-tests-normalizer");
    await app.press(KEY.enter);
    await app.see("▸ ○ clawbench/t2-add-tests-normalizer");
    await app.press(KEY.enter);
    await app.see("clawbench/t2-add-tests-normalizer · baseline · 0/1");
    await app.press(KEY.enter);
    await app.see(
      "t2-add-tests-normalizer__BPeAoa2-a31ba05e · clawbench/t2-add-tests-normalizer · fail",
    );
    await app.press(KEY.esc);
    // back where the attempt was opened from: the task's attempt list, not the task table
    await app.see("clawbench/t2-add-tests-normalizer · baseline · 0/1", "▸ fail");
    app.unmount();
  });

  it("+ after Esc back from the attempt keeps the task's attempt list on that task", async () => {
    const app = renderApp(codexWorkspace(), { columns: 140, rows: 24 });
    await app.see("4 attempts");
    await app.press("G", KEY.enter);
    const task = "ea96e59ed9/redacted-message-len-98-sha-c00-38940dc0";
    await app.see(`${task} · baseline · 0/0`);
    await app.press(KEY.enter);
    await app.see("019c8bfe-ec25-79e0-97d7-bda6a9c575ff-3bac45ba · ea96e59ed9");
    await app.press(KEY.esc);
    await app.see(`${task} · baseline · 0/0`, "+ pass");
    // the pass moves the task to the top of the sorted table; the list stays on it
    await app.press("+");
    await app.see(`${task} · baseline · 1/1`, "pass✎");
    app.unmount();
  });

  it("o on a non-shell tool call shows its arguments as text: a written file line by line", async () => {
    const app = renderApp(workspace(), { columns: 120, rows: 36 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("/", ..."BPeAoa2".split(""));
    await app.see("▸ attempt   t2-add-tests-normalizer__BPeAoa2");
    await app.press(KEY.enter);
    await app.see("write content=(25 lines) path=/workspace/test_normalizer.py");
    await app.press("j", "j", "j", "j", "j", "o");
    await app.see("event 5 · tool_call · write");
    // each argument on its own line, a multi-line string as its lines (no JSON escapes)
    await app.see("path: /workspace/test_normalizer.py", "content:");
    const lines = app.frame().split("\n");
    expect(lines).toContain("from normalizer import normalize_title, normalize_tags");
    expect(app.frame()).not.toContain('{"content":');
    app.unmount();
  });

  it("a 50 MB tool output: its timeline row is cut before Ink sees it", () => {
    const output = "x\ty ".repeat(10_000_000);
    const e: Event = { index: 3, kind: "tool_result", output };
    expect(eventLine(e).length).toBeLessThanOrEqual(ROW_TEXT_MAX);
  });

  it("a 50 MB tool output and a binary one open in the pager", async () => {
    const app = renderApp(bigOutputWorkspace(), { columns: 120, rows: 30 });
    await app.see("1 attempts");
    await app.press(KEY.enter, KEY.enter);
    await app.see("exit 0 line 0 col xxxx");
    await app.press("j", "j", "o");
    await app.see("event 2 · tool_result", "lines 1–");
    expect(app.frame()).toContain("of 700000");
    expect(app.frame()).toContain("line 0  col     xxx"); // tabs expanded
    await app.press("G");
    await app.see("line 699999     col", "lines 699978–700000 of 700000");
    await app.press(KEY.esc);
    await app.see("markers here");
    await app.press("j", "j", "o");
    await app.see("event 4 · tool_result");
    expect(app.frame()).toMatch(/[␀-␟]/); // control bytes shown as control pictures
    app.unmount();
  });

  it("Mechanisms sizes the cluster column from the width: long names keep both ends", async () => {
    const r = render(<App dir={workspace()} theme={themeFor({ NO_COLOR: "1" })} />);
    const frame = () => r.lastFrame() ?? "";
    const see = (...t: string[]) => waitFor(() => t.every((x) => frame().includes(x)), frame);
    const resize = (columns: number, rows: number) => {
      Object.defineProperty(r.stdout, "columns", { value: columns, configurable: true });
      Object.defineProperty(r.stdout, "rows", { value: rows, configurable: true });
      r.stdout.emit("resize");
    };
    resize(120, 36);
    await see(DEMO_ATTEMPTS);
    await typeKeys(r.stdin, "3", "l");
    await see("labels (", "point  family");
    // at 120 columns a 66- and a 72-character name fit whole
    await see("Deployment preservation: no destructive cleanup after a good probe");
    await see("Artifact written at another path than the one the task or verifier names");
    // at 50 the family column gives way and a long name keeps both ends (middle ellipsis)
    resize(50, 36);
    await see("fire 1 2 3 Mechanisms 4 5 6 7");
    await see("    cluster    ");
    expect(frame()).toMatch(/Deployment.*….*good probe/);
    const artifact = frame()
      .split("\n")
      .filter((l) => l.includes("Artifact writ"));
    expect(artifact).toHaveLength(1);
    expect(artifact[0]).toMatch(/Artifact writ.*….*erifier names/);
    for (const line of frame().split("\n")) expect([...line].length, line).toBeLessThanOrEqual(50);
    r.unmount();
  });

  it("a warning in the status line carries a warning symbol, not the last job's ✓", async () => {
    // 60 columns: the message is longer than the line, and the symbol must not give way to it
    const app = renderApp(codexWorkspace(), { columns: 60, rows: 24 });
    await app.see("4 attempts");
    await app.press(KEY.enter, KEY.enter);
    await app.see("markers here");
    await app.press("c"); // no passing sibling, nothing marked: a warning
    await app.see("no passing sibling of");
    expect(app.frame()).toMatch(/^! no passing sibling of/m);
    app.unmount();
  });

  it("a text field's footer names each arrow once, with what it does", async () => {
    const app = renderApp(withDraft().dir, { columns: 200, rows: 36 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("4");
    await app.see("draft      my-serve@1");
    await app.press(KEY.enter);
    await app.see("eligibility.anyOf.0.pattern", "preview positives");
    await app.press(KEY.enter);
    await app.see("Enter keep · Esc drop");
    const footer = () => app.frame().split("\n").at(-1) ?? "";
    expect(footer()).toContain("← left · → right · Alt/Ctrl-← word left · Alt/Ctrl-→ word right");
    app.unmount();
  });

  it("Triage fills a 50×12 terminal: five task rows, no blank rows under the list", async () => {
    const app = renderApp(workspace(), { columns: 50, rows: 12 });
    await app.see(DEMO_ATTEMPTS, `of ${DEMO.tasks}`);
    const lines = app.frame().split("\n");
    expect(lines).toHaveLength(12);
    expect(app.frame()).toContain(`1–5 of ${DEMO.tasks}`);
    expect(lines.filter((l) => l.trim() === "")).toHaveLength(0);
    app.unmount();
  });

  it("the minimum-size message at 30×8 reads as whole lines, none starting with a space", async () => {
    const app = renderApp(workspace(), { columns: 30, rows: 8 });
    await app.see("needs at least 40×10");
    const lines = app
      .frame()
      .split("\n")
      .filter((l) => l.trim() !== "");
    expect(lines).toEqual([
      "fire needs at least 40×10;",
      "this terminal is 30×8.",
      "Enlarge it (q quits).",
    ]);
    app.unmount();
  });
});
