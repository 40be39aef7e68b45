import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { draft, mine, openSession, replayScreen } from "../../src/core/app/index.js";
import { DEMO_ATTEMPTS } from "../helpers/demo.js";
import { demoCopy, KEY, renderApp, waitFor } from "./helpers.js";

const ws = demoCopy();
const drafted: string[] = [];
const files: string[] = [];

beforeAll(async () => {
  // mine → draft from two clusters → a replay screen each (the same use cases as the CLI)
  const s = await openSession(ws.dir);
  const mined = await mine(s, { labeler: "heuristic" });
  for (const family of ["service-persistence", "database-evidence"]) {
    const c = mined.clusters.find((x) => x.family === family);
    const r = await draft(s, c!);
    if (!r.ok) throw new Error(`no draft for ${family}`);
    drafted.push(r.candidate.id);
    files.push(r.file);
  }
  const loaded = await openSession(ws.dir);
  for (const file of files) {
    const { screen } = await replayScreen(loaded, file);
    expect(screen.verdict.verdict).toBe("promising");
  }
});
afterAll(() => ws.cleanup());

const row = (frame: string, id: string) => frame.split("\n").find((l) => l.includes(id)) ?? "";

describe("Candidates: multi-select freeze", () => {
  it("marks two candidates with Space and freezes both into one portfolio", async () => {
    const app = renderApp(ws.dir, { columns: 100, rows: 30 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("4");
    await app.see("Space mark", drafted[0]!, drafted[1]!);
    // the drafts sort first (status draft); mark the first, move down, mark the second
    await app.press(" ");
    await waitMarked(app, 1);
    await app.press(KEY.down, " ");
    await waitMarked(app, 2);
    for (const id of drafted) expect(row(app.frame(), id)).toMatch(/● draft/);
    // Space again unmarks, and marks again
    await app.press(" ");
    await waitMarked(app, 1);
    await app.press(" ");
    await waitMarked(app, 2);
    await app.press("F");
    await app.see("portfolio name (2 marked):");
    await app.press(..."pair".split(""), KEY.enter);
    await app.see("→ portfolios/pair (2 policies");
    for (const id of drafted) await app.see(`frozen     ${id}`);
    expect(app.frame()).not.toContain("●");
    const manifest = JSON.parse(
      readFileSync(join(ws.dir, "portfolios/pair/manifest.json"), "utf8"),
    );
    expect(manifest.policies.map((p: { id: string }) => p.id).sort()).toEqual([...drafted].sort());
    app.unmount();
  });
});

async function waitMarked(app: ReturnType<typeof renderApp>, n: number): Promise<void> {
  const count = () => (app.frame().match(/●/g) ?? []).length;
  await waitFor(() => count() === n, app.frame);
}
