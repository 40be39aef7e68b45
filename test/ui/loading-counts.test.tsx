import { describe, expect, it } from "vitest";
import { mine } from "../../src/core/app/mining.js";
import { openSession, sessionTriage } from "../../src/core/app/session.js";
import { loadWorkspace } from "../../src/core/workspace/load.js";
import { DEMO_ATTEMPTS } from "../helpers/demo.js";
import { demoCopiesPerTest, KEY, renderApp, selectedRow, waitFor } from "./helpers.js";

const copies = demoCopiesPerTest();

/** The header's excluded count and cluster count of a frame (undefined while unknown). */
const counts = (frame: string) => ({
  excluded: Number(/\((\d+) excluded\)/.exec(frame)?.[1] ?? Number.NaN),
  clusters: /(\d+) clusters/.exec(frame)?.[1],
});

/** What `fire triage` counts as excluded in the workspace as it is on disk now. */
const excludedOnDisk = async (dir: string) =>
  sessionTriage(await openSession(dir)).exclusions.length;

describe("the header while the workspace is read", () => {
  it("shows the clusters as unknown until they are read, never a wrong 0", async () => {
    const dir = copies.workspace();
    const mined = await mine({ ws: await loadWorkspace(dir) }, { labeler: "heuristic" });
    const n = mined.clusters.length;
    expect(n).toBeGreaterThan(0);
    const app = renderApp(dir, { columns: 160, rows: 30 });
    await app.see(DEMO_ATTEMPTS, `${n} clusters`);
    const frames = app.frames.join("\n");
    expect(frames).not.toMatch(/ 0 clusters/);
    // the attempts were shown before the clusters were known: then as "…", not as a number
    expect(app.frames.some((f) => f.includes(DEMO_ATTEMPTS) && f.includes("… clusters"))).toBe(
      true,
    );
    app.unmount();
  });

  it("shows labelling's clusters and the exclusions its labels add in one frame; a draft keeps them", async () => {
    const dir = copies.workspace();
    const before = await excludedOnDisk(dir);
    const app = renderApp(dir, { columns: 160, rows: 30 });
    await app.see(DEMO_ATTEMPTS, " 0 clusters");
    expect(counts(app.frame()).excluded).toBe(before);
    await app.press("3", "l");
    await app.see("labels (", "point  family");
    // the labels name capability gaps, which triage excludes: `fire triage` counts them now
    const after = await excludedOnDisk(dir);
    expect(after).toBeGreaterThan(before);
    expect(counts(app.frame()).excluded).toBe(after);
    // no frame showed the new clusters with the count from before the labels
    for (const f of app.frames) {
      const c = counts(f);
      if (c.clusters !== undefined && c.clusters !== "0") expect(c.excluded).toBe(after);
    }
    // a job started on the data from before the labels (the draft) does not bring it back
    await app.press("d");
    await app.see("drafted candidates/drafts/");
    expect(counts(app.frame()).excluded).toBe(after);
    app.unmount();
  });

  it("an exclude moves the cluster's attempts to the excluded count in one frame; undo takes them back", async () => {
    const dir = copies.workspace();
    await mine({ ws: await loadWorkspace(dir) }, { labeler: "heuristic" });
    const app = renderApp(dir, { columns: 160, rows: 30 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("3");
    await app.see("point  family");
    const start = counts(app.frame());
    const size = Number(/\s(\d+)\s+\d+ (?:stop|tool|prompt)\s/.exec(selectedRow(app))?.[1]);
    expect(size).toBeGreaterThan(0);
    await app.press("e");
    await app.see("exclude reason:");
    const from = app.frames.length;
    await app.press(..."not ours", KEY.enter);
    await app.see("recorded in mining/decisions.json");
    const excluded = start.excluded + size;
    expect(counts(app.frame())).toEqual({
      excluded,
      clusters: String(Number(start.clusters) - 1),
    });
    expect(await excludedOnDisk(dir)).toBe(excluded);
    // every frame in between shows both counts from before or both from after
    for (const f of app.frames.slice(from)) {
      const c = counts(f);
      expect([start.clusters, String(Number(start.clusters) - 1)]).toContain(c.clusters);
      expect(c.excluded).toBe(c.clusters === start.clusters ? start.excluded : excluded);
    }
    await app.press("u");
    await app.see("undid: exclude");
    await waitFor(() => counts(app.frame()).clusters === start.clusters, app.frame);
    expect(counts(app.frame())).toEqual(start);
    expect(await excludedOnDisk(dir)).toBe(start.excluded);
    app.unmount();
  });
});
