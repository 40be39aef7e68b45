import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEMO_ATTEMPTS } from "../helpers/demo.js";
import { demoCopy, KEY, renderApp } from "./helpers.js";

const ws = demoCopy();
afterAll(() => ws.cleanup());

const clusterCount = (frame: string) => Number(/(\d+) clusters/.exec(frame)?.[1] ?? -1);

describe("Mechanisms screen", () => {
  it("labels with progress, clusters, renames, merges, excludes and drafts by keys", async () => {
    const app = renderApp(ws.dir, { columns: 120, rows: 30 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("3");
    await app.see("Nothing mined yet");
    await app.press("l");
    await app.see("labels (", "labelled, 0 failed, 0 reused)");
    const n = clusterCount(app.frame());
    expect(n).toBeGreaterThanOrEqual(8);
    await app.see("cluster", "point  family");

    // rename the first cluster
    await app.press("r");
    await app.see("new name:");
    // the field holds the cluster's name (often past 60 characters): Ctrl-U clears it
    await app.press(KEY.ctrlU, ..."detached server lost".split(""), KEY.enter);
    await app.see("recorded in mining/decisions.json", "▸   detached server lost");

    // merge the first two clusters (Enter keeps the pre-filled name of the marked one)
    await app.press("m", "j", "m");
    await app.see("merged name:");
    await app.press(KEY.enter);
    await app.see(`${n - 1} clusters`);

    // exclude the selected cluster with a reason
    await app.press("e");
    await app.see("exclude reason:");
    await app.press(..."not procedural".split(""), KEY.enter);
    await app.see(`${n - 2} clusters`);
    const decisions = JSON.parse(readFileSync(join(ws.dir, "mining/decisions.json"), "utf8"));
    expect(decisions.decisions.map((d: { op: string }) => d.op)).toEqual([
      "rename",
      "merge",
      "exclude",
    ]);

    // draft a candidate from the selected cluster
    await app.press("g", "d");
    await app.see("drafted candidates/drafts/draft-");
    expect(readdirSync(join(ws.dir, "candidates/drafts")).length).toBe(1);
    app.unmount();
  });

  it("splits an attempt out of a cluster from its member list", async () => {
    const app = renderApp(ws.dir, { columns: 120, rows: 30 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("3");
    await app.see("point  family");
    const before = clusterCount(app.frame());
    // find a cluster with at least two attempts
    for (let i = 0; i < 30; i++) {
      const row =
        app
          .frame()
          .split("\n")
          .find((l) => l.startsWith("▸")) ?? "";
      if (/\s([2-9]|\d\d)\s+\d+\s+(stop|tool|prompt)/.test(row)) break;
      await app.press("j");
    }
    await app.press(KEY.enter);
    await app.see("members of", "s split");
    await app.press("s");
    await app.see(`${before + 1} clusters`);
    expect(existsSync(join(ws.dir, "mining/decisions.json"))).toBe(true);
    app.unmount();
  });
});
