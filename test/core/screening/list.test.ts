import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listRunScreens } from "../../../src/core/screening/results/list.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "fire-screens-"));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe("listRunScreens", () => {
  it("is empty without screens/", async () => {
    expect(await listRunScreens(dir)).toEqual([]);
  });

  it("lists run screen folders by name with plan presence; replay screens and files are left out", async () => {
    await mkdir(join(dir, "screens", "zeta"), { recursive: true });
    await mkdir(join(dir, "screens", "alpha"), { recursive: true });
    await mkdir(join(dir, "screens", "replay-x"), { recursive: true });
    await writeFile(join(dir, "screens", "alpha", "plan.json"), "{}");
    await writeFile(join(dir, "screens", "notes.txt"), "x");
    expect(await listRunScreens(dir)).toEqual([
      { name: "alpha", hasPlan: true, rows: 0 },
      { name: "zeta", hasPlan: false, rows: 0 },
    ]);
  });
});
