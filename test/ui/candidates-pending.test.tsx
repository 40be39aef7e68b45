import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEMO_ATTEMPTS } from "../helpers/demo.js";
import { demoCopiesPerTest, renderApp, waitFor } from "./helpers.js";

const copies = demoCopiesPerTest();

/** Many candidate files, so their read (one file a turn, after the first frame) takes a while. */
function manyCandidates(dir: string, n: number): void {
  const ref = readFileSync(join(dir, "candidates/reference/service-persistence.yaml"), "utf8");
  for (let i = 0; i < n; i++)
    writeFileSync(
      join(dir, `candidates/extra-${String(i).padStart(3, "0")}.yaml`),
      ref.replace("id: ref-service-persistence", `id: extra-${i}`),
    );
}

describe("candidate files read after the first frame", () => {
  it("keys typed for Candidates while they are read wait for them, none is lost", async () => {
    const dir = copies.workspace();
    manyCandidates(dir, 300);
    const app = renderApp(dir, { columns: 120, rows: 36 });
    await app.see(DEMO_ATTEMPTS, "… candidates");
    // typed while the files are still being read: Candidates holds them, then runs them
    await app.press("4");
    await app.see("reading the candidate files…");
    await app.press("j", "j");
    expect(app.frame()).toContain("reading the candidate files…");
    await app.see("family / lineage");
    // the held j j run once the list is there: the cursor ends two rows down (lost keys
    // would leave it on the first row and this wait would time out)
    await waitFor(() => /^▸ .*extra-2@1/m.test(app.frame()), app.frame);
    expect(app.frame()).not.toContain("… candidates");
    expect(app.frame()).toMatch(/^ {2,}.*extra-0@1/m);
    app.unmount();
  });
});
