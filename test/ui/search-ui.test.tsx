import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Attempt } from "../../src/core/model/attempt.js";
import { loadWorkspace } from "../../src/core/workspace/load.js";
import { DEMO_ATTEMPTS } from "../helpers/demo.js";
import { demoCopy, renderApp, waitFor } from "./helpers.js";

/**
 * Issue 13, "What was seen · Search", typed into the `/` overlay: a phrase lists every task
 * whose text holds it (`keep the server running` found 0 though two tasks hold it, `port 5000`
 * missed one), and each result is one row inside the overlay's box, even for a task text
 * holding newlines.
 */
const ws = demoCopy();
const dir = ws.dir;
let attempts: Attempt[] = [];
beforeAll(async () => {
  attempts = (await loadWorkspace(dir)).attempts;
});
afterAll(() => ws.cleanup());

/** The tasks whose text holds `phrase` (whitespace and case folded), as the issue reads it. */
const holding = (phrase: string) =>
  new Set(
    attempts
      .filter((a) => a.taskText.replace(/\s+/g, " ").toLowerCase().includes(phrase))
      .map((a) => a.taskId),
  );

describe("search overlay", () => {
  for (const phrase of ["keep the server running", "port 5000"])
    it(`“${phrase}” lists every task whose text holds it, one row each`, async () => {
      const tasks = holding(phrase);
      expect(tasks.size).toBeGreaterThanOrEqual(1);
      const columns = 120;
      const app = renderApp(dir, { columns, rows: 30 });
      await app.see(DEMO_ATTEMPTS);
      await app.press("/", ...phrase.split(""));
      await app.see(`matches for “${phrase}”`);
      const rows = () =>
        app
          .frame()
          .split("\n")
          .filter((l) => /^│ [▸ ] task {6}/.test(l));
      await waitFor(() => rows().length >= tasks.size, app.frame);
      for (const t of tasks) expect(rows().some((r) => r.includes(` ${t} `))).toBe(true);
      // every row of the box is one terminal row: it starts and ends on the box's border
      const box = app
        .frame()
        .split("\n")
        .filter((l) => l.startsWith("│"));
      for (const l of box) {
        expect([...l]).toHaveLength(columns);
        expect(l.trimEnd().endsWith("│")).toBe(true);
      }
      app.unmount();
    });

  it("a task whose text holds newlines is one result row", async () => {
    const multi = attempts.find((a) => /\n\s*\S/.test(a.taskText.trim()));
    expect(multi).toBeDefined();
    const columns = 120;
    const app = renderApp(dir, { columns, rows: 30 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("/", ...multi!.taskId.split(""));
    await app.see(`task      ${multi!.taskId}`);
    const lines = app.frame().split("\n");
    const at = lines.findIndex((l) => l.includes(`task      ${multi!.taskId}`));
    const row = lines[at]!;
    expect([...row]).toHaveLength(columns);
    expect(row.trimEnd().endsWith("│")).toBe(true);
    // the next row is another result or the box's end, not the text's second line
    expect(lines[at + 1]).toMatch(/^(│ [▸ ] \S|│ +│|╰)/);
    app.unmount();
  });
});
