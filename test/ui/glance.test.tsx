import { existsSync } from "node:fs";
import { join } from "node:path";
import { render } from "ink-testing-library";
import { describe, expect, it } from "vitest";
import { mine } from "../../src/core/app/mining.js";
import { openSession, sessionTriage } from "../../src/core/app/session.js";
import { appendDecision } from "../../src/core/mine/decisions.js";
import { loadWorkspace } from "../../src/core/workspace/load.js";
import { Boot } from "../../src/ui/Boot.js";
import { themeFor } from "../../src/ui/theme.js";
import { DEMO_ATTEMPTS } from "../helpers/demo.js";
import { demoCopiesPerTest, KEY, waitFor } from "./helpers.js";

const copies = demoCopiesPerTest();
const GLANCE = ".fire/cache/triage-glance.json";

/** The workbench as `fire` starts it: Boot, at 160×30. */
function renderBoot(dir: string) {
  const r = render(
    <Boot dir={dir} size={{ columns: 160, rows: 30 }} theme={themeFor({ NO_COLOR: "1" })} />,
  );
  const frame = () => r.lastFrame() ?? "";
  const see = (...t: string[]) => waitFor(() => t.every((x) => frame().includes(x)), frame);
  return { ...r, frame, see };
}

/** The header's counts of a frame: attempts, excluded, tasks (undefined before any). */
const counts = (frame: string) =>
  /(\d+ attempts \(\d+ excluded\) · \d+ tasks: \d+ reachable, \d+ unsolved, \d+ solved)/.exec(
    frame,
  )?.[1];

/** Opens the workbench until its clusters are read (its triage is then kept), and closes it. */
async function openOnce(dir: string, clusters: number) {
  const app = renderBoot(dir);
  await app.see(DEMO_ATTEMPTS, `${clusters} clusters`);
  await waitFor(() => existsSync(join(dir, GLANCE)), app.frame);
  app.unmount();
}

describe("the first frame from triage as last computed", () => {
  it("shows the counts and tasks before the index is read, and no frame shows others", async () => {
    const dir = copies.workspace();
    const n = (await mine({ ws: await loadWorkspace(dir) }, { labeler: "heuristic" })).clusters
      .length;
    await openOnce(dir, n);
    const app = renderBoot(dir);
    await app.see(DEMO_ATTEMPTS, `${n} clusters`, "candidates");
    await waitFor(() => !app.frame().includes("… candidates"), app.frame);
    const final = counts(app.frame());
    expect(final).toBeDefined();
    // while the workspace was still being read, the counts were already shown (the glance),
    // with the clusters and candidates unknown, not 0
    const early = app.frames.find((f) => counts(f) !== undefined);
    expect(early).toContain("reading workspace");
    expect(early).toContain("… clusters · … candidates");
    // and every frame with counts showed the final ones
    for (const f of app.frames) if (counts(f) !== undefined) expect(counts(f)).toBe(final);
    expect(app.frames.join("\n")).not.toMatch(/ 0 clusters| 0 candidates/);
    app.unmount();
  });

  it("keys typed on it are handled in order once the workspace is read", async () => {
    const dir = copies.workspace();
    await openOnce(dir, 0);
    const second = sessionTriage(await openSession(dir)).tasks[1]!;
    const app = renderBoot(dir);
    await waitFor(() => counts(app.frame()) !== undefined, app.frame);
    // j then Enter, whichever frame they meet: the second task's attempts open
    app.stdin.write("j");
    app.stdin.write(KEY.enter);
    await app.see(`${second.taskId} · ${second.arm} · ${second.passes}/${second.n}`);
    app.unmount();
  });

  it("is not shown once a decision changed triage since it was kept", async () => {
    const dir = copies.workspace();
    await openOnce(dir, 0);
    // a user exclusion from elsewhere (the CLI) after the glance was kept
    const kept = sessionTriage(await openSession(dir));
    const id = kept.tasks.flatMap((t) => t.failedIds)[0]!;
    await appendDecision(dir, { op: "exclude", attemptIds: [id], reason: "not ours" });
    const now = sessionTriage(await openSession(dir)).exclusions.length;
    expect(now).toBe(kept.exclusions.length + 1);
    const app = renderBoot(dir);
    await app.see(DEMO_ATTEMPTS);
    await waitFor(() => app.frame().includes("0 clusters"), app.frame);
    for (const f of app.frames) {
      const m = /\((\d+) excluded\)/.exec(f);
      if (m) expect(Number(m[1])).toBe(now);
    }
    app.unmount();
  });
});
