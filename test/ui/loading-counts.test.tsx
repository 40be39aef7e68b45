import { describe, expect, it } from "vitest";
import { mine } from "../../src/core/app/mining.js";
import { loadWorkspace } from "../../src/core/workspace/load.js";
import { DEMO_ATTEMPTS } from "../helpers/demo.js";
import { demoCopiesPerTest, renderApp } from "./helpers.js";

const copies = demoCopiesPerTest();

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
});
