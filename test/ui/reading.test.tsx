import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Box } from "ink";
import { render } from "ink-testing-library";
import { afterAll, describe, expect, it } from "vitest";
import { App } from "../../src/ui/App.js";
import { Pager } from "../../src/ui/components/Pager.js";
import { ThemeContext } from "../../src/ui/contexts/ThemeContext.js";
import { KeypressProvider } from "../../src/ui/hooks/useKeypress.js";
import { StickyProvider } from "../../src/ui/hooks/useSticky.js";
import { PagerText, pagerRows } from "../../src/ui/text/pager-model.js";
import { themeFor } from "../../src/ui/theme.js";
import { DEMO_ATTEMPTS } from "../helpers/demo.js";
import { demoCopy, KEY, renderApp, typeKeys, waitFor } from "./helpers.js";

const ws = demoCopy();
afterAll(() => ws.cleanup());

function renderPager(text: string, size = { columns: 80, rows: 12 }) {
  let closed = false;
  const r = render(
    <ThemeContext.Provider value={themeFor({ NO_COLOR: "1" })}>
      <KeypressProvider>
        <StickyProvider>
          <Box height={size.rows}>
            <Pager
              title="output"
              text={text}
              editName="out.txt"
              width={size.columns}
              height={size.rows}
              onClose={() => {
                closed = true;
              }}
            />
          </Box>
        </StickyProvider>
      </KeypressProvider>
    </ThemeContext.Provider>,
  );
  const frame = () => r.lastFrame() ?? "";
  return {
    ...r,
    frame,
    closed: () => closed,
    see: (...t: string[]) => waitFor(() => t.every((x) => frame().includes(x)), frame),
    press: (...keys: string[]) => typeKeys(r.stdin, ...keys),
  };
}

const numbered = (n: number) => Array.from({ length: n }, (_v, i) => `line ${i + 1}`).join("\n");

describe("pager", () => {
  it("expands tabs so a line holding a tab keeps its last character", () => {
    const doc = new PagerText("import\tsolution\nx\ty\tz");
    const rows = pagerRows(doc, 0, 5, 40, { wrap: false, left: 0 });
    expect(rows.map((r) => r.text)).toEqual(["import  solution", "x       y       z"]);
  });

  it("renders a tabbed line whole in the pager frame, wrapped or not", async () => {
    const p = renderPager("import\tsolution\nkey\tvalue\tend", { columns: 40, rows: 8 });
    await p.see("import  solution", "key     value   end");
    await p.press("w");
    await p.see("· wrap", "import  solution", "key     value   end");
    p.unmount();
  });

  it("scrolls a 25-line output with j/k, PgDn, G/g; / finds, n/N move between matches", async () => {
    const p = renderPager(`${numbered(25)}\nthe needle here\n${numbered(5)}\nneedle again`);
    await p.see("line 1", "lines 1–9 of 32");
    await p.press("j", "j");
    await p.see("lines 3–11 of 32");
    await p.press("G");
    await p.see("needle again", "lines 24–32 of 32");
    await p.press("g");
    await p.see("lines 1–9");
    await p.press("/", ..."NEEDLE".split(""), KEY.enter);
    await p.see("“NEEDLE” 1/2", "the needle here");
    await p.press("n");
    await p.see("“NEEDLE” 2/2", "needle again");
    await p.press("N");
    await p.see("“NEEDLE” 1/2");
    await p.press(KEY.esc);
    await waitFor(p.closed, p.frame);
    p.unmount();
  });

  it("wraps long lines with w and scrolls sideways without wrap", async () => {
    const long = `${"a".repeat(70)}TAIL-END${"b".repeat(60)}`;
    const p = renderPager(long, { columns: 40, rows: 8 });
    await p.see("aaaa");
    expect(p.frame()).not.toContain("TAIL-END");
    await p.press("\u001B[C");
    await p.see("col 21");
    await p.press("w");
    await p.see("· wrap", "TAIL-END");
    expect(
      p
        .frame()
        .split("\n")
        .every((l) => l.length <= 40),
    ).toBe(true);
    p.unmount();
  });

  it("opens a 50 MB binary-laced output and reaches its end", async () => {
    const chunk = `${"x".repeat(20)}\u0000\u0007${"y".repeat(79)}\n`;
    const big = `${chunk.repeat(500_000)}LAST LINE`;
    expect(big.length).toBeGreaterThan(50_000_000);
    const p = renderPager(big);
    await p.see("lines 1–9 of 500001", "␀");
    await p.press("G");
    await p.see("LAST LINE", "of 500001");
    p.unmount();
  });

  it("e opens the text in $EDITOR and shows it as saved", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fire-editor-"));
    const editor = join(dir, "ed.sh");
    writeFileSync(editor, '#!/bin/sh\nprintf "added by the editor\\n" >> "$1"\n');
    chmodSync(editor, 0o755);
    const saved = process.env.EDITOR;
    process.env.EDITOR = editor;
    try {
      const p = renderPager("first line\n");
      await p.see("first line");
      await p.press("e");
      await p.see("added by the editor", "reloaded from $EDITOR");
      p.unmount();
    } finally {
      if (saved === undefined) delete process.env.EDITOR;
      else process.env.EDITOR = saved;
    }
  });
});

describe("reading, comparing and going back in the workbench", () => {
  it("compares a failed attempt with its passing sibling; Esc goes back where it came from", async () => {
    const app = renderApp(ws.dir, { columns: 120, rows: 30 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("/");
    await app.see("type to search");
    await app.press(..."hAXff60".split(""));
    await app.see("serve-static-docs__hAXff60");
    await app.press(KEY.enter);
    await app.see("markers here");
    await app.press("c");
    await app.see("shared steps", "first divergence at row", "▶", "· pass");
    // aligned by step: a │ row holds one command on both sides, a ≠ row a step of one side
    const aligned = () => {
      const lines = app.frame().split("\n");
      const head = lines.find((l) => l.includes(" · fail") && l.includes(" · pass")) ?? "";
      const sep = head.indexOf(" │ "); // a row's separator sits one column left of the header's
      const rows = lines
        .filter((l) => /^[▸ ] /.test(l) && "│≠▶".includes(l[sep] ?? ""))
        .map((l) => ({
          mark: l[sep],
          left: l.slice(2, sep).trim().replace(/^\d+ /, ""),
          right: l
            .slice(sep + 1)
            .trim()
            .replace(/^\d+ /, ""),
        }));
      return { head, rows };
    };
    const { head, rows } = aligned();
    expect(head.indexOf(" · fail")).toBeLessThan(head.indexOf(" · pass")); // fail on the left
    const shared = rows.filter((r) => r.mark === "│");
    expect(shared.length).toBe(Number(/(\d+) shared steps/.exec(app.frame())?.[1]));
    expect(shared.length).toBeGreaterThan(0);
    for (const r of shared) expect(r.right).toBe(r.left);
    expect(rows.filter((r) => r.mark === "▶")).toHaveLength(1);
    for (const r of rows.filter((x) => x.mark === "≠"))
      expect([r.left, r.right].filter((x) => x !== "")).toHaveLength(1);
    // s swaps the sides
    await app.press("s");
    await waitFor(() => {
      const h = aligned().head;
      return h.indexOf(" · pass") >= 0 && h.indexOf(" · pass") < h.indexOf(" · fail");
    }, app.frame);
    await app.press("s");
    await waitFor(
      () => aligned().head.indexOf(" · fail") < aligned().head.indexOf(" · pass"),
      app.frame,
    );
    // d moves the cursor to the first divergence (▶), where the view opens: from a row
    // below it (j), since a wait for "▸" alone held before the key too
    const atDivergence = () =>
      app
        .frame()
        .split("\n")
        .some((l) => l.startsWith("▸") && l.includes("▶"));
    await app.press("j");
    expect(atDivergence()).toBe(false);
    await app.press("d");
    await waitFor(atDivergence, app.frame);
    await app.press(KEY.esc);
    await app.see("markers here", "serve-static-docs__hAXff60-0103688c");
    await app.press(KEY.esc);
    await app.see("filters:"); // back to Triage, where the search was opened from
    app.unmount();
  });

  it("marks one attempt and compares it with another from the task's attempt list", async () => {
    const app = renderApp(ws.dir, { columns: 120, rows: 30 });
    await app.see(DEMO_ATTEMPTS);
    await app.press(KEY.enter);
    await app.see("Space mark");
    const ids = app
      .frame()
      .split("\n")
      .flatMap((l) => /^[▸ ] [ *]?(?:pass|fail)\S*\s+(\S+)/.exec(l)?.[1] ?? []);
    expect(ids.length).toBeGreaterThanOrEqual(2);
    await app.press(" ", "j", "c");
    await app.see("shared steps");
    // the two attempts chosen: the one under the cursor on the left, the marked one right
    const head =
      app
        .frame()
        .split("\n")
        .find((l) => l.includes(" │ ")) ?? "";
    expect(head.indexOf(ids[1]!)).toBeGreaterThanOrEqual(0);
    expect(head.indexOf(ids[0]!)).toBeGreaterThan(head.indexOf(ids[1]!));
    app.unmount();
  });

  it("every list keeps its cursor and filters across screen switches", async () => {
    const app = renderApp(ws.dir);
    await app.see(DEMO_ATTEMPTS);
    await app.press("f", "j", "j");
    await app.see("status=reachable");
    const sel = () =>
      app
        .frame()
        .split("\n")
        .find((l) => l.startsWith("▸")) ?? "";
    // the index of the selected row among a list's rows: each list really moved
    const at = (row: RegExp) =>
      app
        .frame()
        .split("\n")
        .filter((l) => row.test(l))
        .findIndex((l) => l.startsWith("▸"));
    await waitFor(() => at(/^[▸ ] [◐○●⊘] /) === 2, app.frame);
    const before = sel();
    await app.press("4");
    await app.see("family / lineage");
    await app.press("j", "j", "j");
    await waitFor(() => at(/^[▸ ]\s+[a-z]+\s+\S+@\d+\s/) === 3, app.frame);
    const cand = sel();
    await app.press("1");
    await app.see("status=reachable");
    expect(sel()).toBe(before);
    await app.press("4");
    await app.see("family / lineage");
    expect(sel()).toBe(cand);
    app.unmount();
  });

  it("o reads an event's full text in the pager", async () => {
    const app = renderApp(ws.dir);
    await app.see(DEMO_ATTEMPTS);
    await app.press(KEY.enter);
    await app.see("+ pass · - fail");
    await app.press(KEY.enter);
    await app.see("markers here");
    await app.press("j", "j", "o");
    await app.see("event 2", "lines 1–");
    await app.press("q");
    await app.see("markers here");
    app.unmount();
  });
});

describe("layout", () => {
  it("below 40×10 shows a minimum-size message, and a resize brings the workbench back", async () => {
    const r = render(<App dir={ws.dir} theme={themeFor({ NO_COLOR: "1" })} />);
    const frame = () => r.lastFrame() ?? "";
    Object.defineProperty(r.stdout, "columns", { value: 30, configurable: true });
    Object.defineProperty(r.stdout, "rows", { value: 8, configurable: true });
    r.stdout.emit("resize");
    await waitFor(() => frame().includes("needs at least 40×10"), frame);
    expect(frame()).toContain("30×8");
    expect(
      frame()
        .split("\n")
        .every((l) => l.length <= 30),
    ).toBe(true);
    Object.defineProperty(r.stdout, "columns", { value: 50, configurable: true });
    Object.defineProperty(r.stdout, "rows", { value: 12, configurable: true });
    r.stdout.emit("resize");
    await waitFor(() => frame().includes("k/n"), frame);
    const lines = frame().split("\n");
    expect(lines.length).toBeLessThanOrEqual(12);
    expect(lines.every((l) => l.length <= 50)).toBe(true);
    // k/n stays on screen at 50 columns
    expect(lines.find((l) => l.startsWith("▸"))).toMatch(/\d+\/\d+/);
    r.unmount();
  });

  it("ids keep both ends at narrow widths (middle ellipsis)", async () => {
    const app = renderApp(ws.dir, { columns: 40, rows: 40 });
    await app.see(DEMO_ATTEMPTS, "k/n");
    const rows = app
      .frame()
      .split("\n")
      .filter((l) => /^[▸ ] [◐○●⊘] /.test(l));
    expect(rows.some((l) => /[◐○●⊘] \S+…\S+ /.test(l))).toBe(true);
    // every task (one arm each in the demo) keeps a cell of its own: none two alike
    const cells = rows.map((l) => /[◐○●⊘] (\S+)/.exec(l)?.[1]);
    expect(new Set(cells).size).toBe(rows.length);
    expect(rows.every((l) => /\d+\/\d+/.test(l))).toBe(true); // k/n always on screen
    app.unmount();
  });

  it("a text field has a cursor: Left then X inserts before the last character", async () => {
    const app = renderApp(ws.dir, { columns: 100, rows: 24 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("/", "a", "b", "c", "\u001B[D", "X");
    await app.see("“abXc”");
    await app.press("\u001B[H", "Y");
    await app.see("“YabXc”");
    app.unmount();
  });
});
