import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/paths.js";
import { filesUnder } from "./tree.js";

// Runs the BUILT generator (`npx tsc -p tsconfig.json` first; `npm test` builds).
const CLI = join(REPO_ROOT, "dist", "gen", "cli.js");
const run = (args: string[]) =>
  promisify(execFile)(process.execPath, [CLI, ...args]).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => ({
      code: e.code,
      stdout: e.stdout,
      stderr: e.stderr,
    }),
  );
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe("gen CLI", () => {
  it("writes a small demo with the requested tasks and attempts", async () => {
    const d = await mkdtemp(join(tmpdir(), "fire-gen-cli-"));
    dirs.push(d);
    const r = await run(["--out", d, "--seed", "9", "--tasks", "3", "--attempts", "1"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^wrote 3 tasks, 3 attempts, /);
    expect(await filesUnder(d, "trajectory.json")).toHaveLength(3);
    const m = JSON.parse(await readFile(join(d, "manifest.json"), "utf8"));
    expect(m.tasks.map((t: { taskId: string }) => t.taskId)).toEqual([
      "serve-static-docs",
      "flask-kv-store-api",
      "metrics-exporter-daemon",
    ]);
  });

  it("exits 2 with a clear message on bad arguments", async () => {
    const bad = await run(["--out", "/tmp/x", "--seed", "1", "--formats", "harbor,tb9"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("unknown format 'tb9'");
    const noSeed = await run(["--out", "/tmp/x"]);
    expect(noSeed.code).toBe(2);
    expect(noSeed.stderr).toContain("--seed");
  });
});
