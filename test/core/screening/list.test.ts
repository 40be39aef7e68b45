import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DomainError } from "../../../src/core/errors.js";
import { replayScreenFile, screenPaths } from "../../../src/core/screening/paths.js";
import { readReplayScreen } from "../../../src/core/screening/replay/screen-files.js";
import { listRunScreens } from "../../../src/core/screening/results/list.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "fire-screens-"));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

/** A saved replay screen as `fire screen replay` writes it, reduced to what readers check. */
const savedScreen = (key: string, verdict: string) =>
  JSON.stringify({
    kind: "fire-replay-screen",
    candidate: key,
    candidateSha256: "0".repeat(64),
    verdict: { verdict, findings: [], evidence: [] },
  });

describe("listRunScreens", () => {
  it("is empty without screens/", async () => {
    expect(await listRunScreens(dir)).toEqual([]);
  });

  it("lists run screen folders by name with plan presence; replay screens and files are left out", async () => {
    await mkdir(join(dir, "screens", "zeta"), { recursive: true });
    await mkdir(join(dir, "screens", "alpha"), { recursive: true });
    // a run screen may start with "replay-": only the folder's content tells a replay screen
    await mkdir(join(dir, "screens", "replay-of-logs"), { recursive: true });
    await mkdir(join(dir, "screens", "replay", "x-v1"), { recursive: true });
    await writeFile(
      join(dir, "screens", "replay", "x-v1", "screen.json"),
      savedScreen("x@1", "inert"),
    );
    // an older workspace's replay screen, kept beside the run screens
    await mkdir(join(dir, "screens", "replay-y-v1"), { recursive: true });
    await writeFile(
      join(dir, "screens", "replay-y-v1", "screen.json"),
      savedScreen("y@1", "inert"),
    );
    await writeFile(join(dir, "screens", "alpha", "plan.json"), "{}");
    await writeFile(join(dir, "screens", "notes.txt"), "x");
    expect(await listRunScreens(dir)).toEqual([
      { name: "alpha", hasPlan: true, rows: 0 },
      { name: "replay-of-logs", hasPlan: false, rows: 0 },
      { name: "zeta", hasPlan: false, rows: 0 },
    ]);
  });
});

describe("replay screens have their own folder", () => {
  it("screens/replay/<id>-v<version>/screen.json, apart from the run screens", () => {
    expect(relative(dir, replayScreenFile(dir, "svc-persist@3"))).toBe(
      join("screens", "replay", "svc-persist-v3", "screen.json"),
    );
    expect(relative(dir, screenPaths(dir, "svc-persist-v3").dir)).toBe(
      join("screens", "svc-persist-v3"),
    );
  });

  it("no run screen may take the replay screens' folder name", () => {
    expect(() => screenPaths(dir, "replay")).toThrow(DomainError);
    expect(() => screenPaths(dir, "replay")).toThrow(/screens\/replay\/ holds the replay screens/);
  });

  it("reads an older workspace's replay screen (screens/replay-<id>-v<version>/) until a new one is saved", async () => {
    expect(readReplayScreen(dir, "y@1")).toBeUndefined();
    await mkdir(join(dir, "screens", "replay-y-v1"), { recursive: true });
    await writeFile(
      join(dir, "screens", "replay-y-v1", "screen.json"),
      savedScreen("y@1", "inert"),
    );
    expect(readReplayScreen(dir, "y@1")?.verdict.verdict).toBe("inert");
    await mkdir(join(dir, "screens", "replay", "y-v1"), { recursive: true });
    await writeFile(replayScreenFile(dir, "y@1"), savedScreen("y@1", "over-broad"));
    expect(readReplayScreen(dir, "y@1")?.verdict.verdict).toBe("over-broad");
  });
});
