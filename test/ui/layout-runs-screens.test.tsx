import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planReportCheckIn } from "../helpers/screens.js";
import { demoCopy, KEY, renderTerminal, waitFor } from "./helpers.js";

const ws = demoCopy();
// two run screens whose names differ only at the end
const NAMES = [
  "nightly-report-check-screen-2026-12-01-a",
  "nightly-report-check-screen-2026-12-01-b",
];

beforeAll(async () => {
  for (const name of NAMES) await planReportCheckIn(ws.dir, name, 1);
  // eleven candidates: the routing audit needs column labels past 9
  const ref = join(ws.dir, "candidates/reference");
  for (const f of readdirSync(ref).slice(0, 3)) {
    const text = readFileSync(join(ref, f), "utf8");
    const id = /^id: (\S+)$/m.exec(text)![1]!;
    writeFileSync(join(ref, `copy-${f}`), text.replace(/^id: \S+$/m, `id: ${id}-copy`));
  }
});
afterAll(() => ws.cleanup());

const terminal = (columns: number, rows: number) => renderTerminal(ws.dir, columns, rows);

describe("Runs and Screens at 30 and 40 columns, and across a resize", () => {
  it("Runs: 30 columns asks for room; at 40 both names stay apart; 120 shows every column", async () => {
    const t = terminal(30, 12);
    await t.see("needs at least 40×10");
    expect(t.fits(30)).toBe(true);
    t.resize(40, 14);
    await t.see("k/n");
    await t.press("7");
    // the list, and the selected screen's schedule line under it (that loads after the list)
    await t.see("not started", "4 trials");
    expect(t.fits(40)).toBe(true);
    // middle ellipsis: the ends that tell the two screens apart stay visible
    const rows = t
      .frame()
      .split("\n")
      .filter((l) => l.includes("nightly") && !l.includes("trials"));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/nightly.*….*-a/);
    expect(rows[1]).toMatch(/nightly.*….*-b/);
    await t.press(KEY.enter);
    // the list's schedule line says the same, so wait for the schedule's own rows
    const pending = () =>
      t
        .frame()
        .split("\n")
        .filter((l) => l.trimEnd().endsWith("pending"));
    await waitFor(() => pending().length > 0, t.frame);
    expect(t.frame()).toContain("4 trials · 4 pending · nightly");
    expect(t.fits(40)).toBe(true);
    // the task ids keep both ends and the status column stays
    const trial = pending();
    expect(trial).toHaveLength(4);
    expect(trial.filter((l) => /sta.*….*ests/.test(l))).toHaveLength(2);
    t.resize(120, 20);
    await t.see("report-check@1", "standin/report-sales");
    expect(t.fits(120)).toBe(true);
    expect(t.frame()).toContain("rep task");
    t.r.unmount();
  });

  it("Screens: the routing audit labels its columns 1 … 11 and fits 40 columns", async () => {
    const t = terminal(100, 24);
    await t.see("k/n");
    await t.press("5");
    await t.see("routing audit");
    await t.press("a");
    await t.see("routed of");
    const header =
      t
        .frame()
        .split("\n")
        .find((l) => l.startsWith("task")) ?? "";
    const labels = /^task\s+([\d ]+?)\s{3}1=/.exec(header)?.[1]?.trim().split(/\s+/);
    expect(labels).toEqual(["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"]);
    // each routed row has one mark under each label
    const at = (n: number) => header.indexOf(` ${n} `) + String(n).length;
    const row =
      t
        .frame()
        .split("\n")
        .find((l) => l.includes("●")) ?? "";
    for (const n of [1, 9, 10, 11]) expect("●·").toContain(row[at(n)]);
    t.resize(40, 14);
    await waitFor(() => t.fits(40), t.frame);
    await t.see("routed of");
    await t.press("p");
    await t.see("not screened");
    expect(t.fits(40)).toBe(true);
    await t.press("s");
    await t.see("-01-a", "-01-b");
    expect(t.fits(40)).toBe(true);
    t.r.unmount();
  });
});
