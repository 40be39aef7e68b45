import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { indexFile } from "../../src/core/workspace/index-file.js";
import { fireIn } from "../helpers/cli.js";
import { FIXTURES, fixture } from "../helpers/paths.js";

let ws: string;
beforeEach(async () => {
  ws = await mkdtemp(join(tmpdir(), "fire-cli-import-"));
});
afterEach(async () => {
  await rm(ws, { recursive: true, force: true });
});

const noStack = (text: string): void => {
  expect(text).not.toMatch(/\n\s+at .+:\d+:\d+/);
};

describe("fire import", () => {
  it("imports the 15 real Harbor trials with no errors and records the source", async () => {
    const r = await fireIn([
      "import",
      relative(process.cwd(), fixture("harbor-openclaw")),
      "--json",
      "--workspace",
      ws,
    ]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as {
      attempts: number;
      byFormat: Record<string, number>;
      errors: unknown[];
    };
    expect(out).toEqual({ attempts: 15, byFormat: { "harbor-trial": 15 }, errors: [] });
    const cfg = JSON.parse(await readFile(join(ws, "fire.config.json"), "utf8"));
    expect(cfg).toEqual({ sources: ["traces/", fixture("harbor-openclaw")] });
  });

  it("keeps the workspace index fresh: the workbench's warm open sees the import", async () => {
    // (the index is keyed to the code that wrote it, so it is read as a file here)
    const indexed = async () =>
      (JSON.parse(await readFile(indexFile(ws), "utf8")) as { table: { ids: unknown[] } }).table.ids
        .length;
    await fireIn(["import", fixture("codex-rollouts-redacted"), "--json", "--workspace", ws]);
    await fireIn(["--json", "--workspace", ws]); // any full read writes the index
    expect(await indexed()).toBe(4);
    const r = await fireIn(["import", fixture("harbor-openclaw"), "--json", "--workspace", ws]);
    expect(r.status).toBe(0);
    expect(await indexed()).toBe(19);
  });

  it("does not add a source twice, nor one inside an existing folder source", async () => {
    await fireIn(["import", FIXTURES, "--json", "--workspace", ws]);
    const inside = fixture("codex-rollouts-redacted");
    const again = await fireIn(["import", inside, "--json", "--workspace", ws]);
    expect(again.status).toBe(0);
    expect(JSON.parse(again.stdout).attempts).toBe(4);
    const cfg = JSON.parse(await readFile(join(ws, "fire.config.json"), "utf8"));
    expect(cfg.sources).toEqual(["traces/", FIXTURES]);
  });

  it("prints a one-line report without --json", async () => {
    const r = await fireIn(["import", fixture("harbor-openclaw"), "--workspace", ws]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("imported 15 attempts (harbor-trial 15) from 1 path; 0 errors\n");
  });

  it("exits 2 on a missing path or workspace and leaves the config alone", async () => {
    const missing = await fireIn(["import", join(ws, "nope"), "--workspace", ws]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain(`no such file or directory: ${join(ws, "nope")}`);
    noStack(missing.stderr);
    await expect(readFile(join(ws, "fire.config.json"), "utf8")).rejects.toThrow();
    const noWs = await fireIn(["import", FIXTURES, "--workspace", join(ws, "absent")]);
    expect(noWs.status).toBe(2);
    expect(noWs.stderr).toContain("workspace folder not found");
    const noArgs = await fireIn(["import", "--workspace", ws]);
    expect(noArgs.status).toBe(2);
    expect(noArgs.stderr).toContain("missing required argument 'paths'");
  });

  it("names the unknown key of a bad fire.config.json, exit 1, no stack", async () => {
    await writeFile(
      join(ws, "fire.config.json"),
      '{\n  "sources": ["traces/"],\n  "passTreshold": 1\n}\n',
    );
    for (const args of [["import", FIXTURES], ["attempts"], []]) {
      const r = await fireIn([...args, "--workspace", ws]);
      expect(r.status).toBe(1);
      expect(r.stderr).toBe(
        `fire: ${join(ws, "fire.config.json")}:3: unknown key "passTreshold"\n`,
      );
    }
  });

  it("rejects an unknown command and an unknown option with exit 2", async () => {
    const cmd = await fireIn(["imprt", "--workspace", ws]);
    expect(cmd.status).toBe(2);
    expect(cmd.stderr).toContain("unknown command 'imprt'");
    const opt = await fireIn(["attempts", "--faild", "--workspace", ws]);
    expect(opt.status).toBe(2);
    expect(opt.stderr).toContain("unknown option '--faild'");
    noStack(opt.stderr);
  });
});
