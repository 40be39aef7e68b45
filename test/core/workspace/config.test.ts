import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig, saveConfig, updateConfig } from "../../../src/core/workspace/config.js";
import { configError } from "../../helpers/config-error.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "fire-config-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("fire.config.json", () => {
  it("gives the defaults when the file is missing", async () => {
    const cfg = await loadConfig(dir);
    expect(cfg.sources).toEqual(["traces/"]);
    expect(cfg.passThreshold).toBe(1);
    expect(cfg.outputCap).toBe(8000);
    expect(cfg.llm.concurrency).toBe(4);
    expect(cfg.mining.verifierFaultMarkers).toEqual([]);
    expect(cfg.verdicts.inertMinFiringRate).toBe(0.5);
    expect(cfg.screen.bootstrapResamples).toBe(10_000);
  });

  it("fills defaults inside a partly written section", async () => {
    await writeFile(
      join(dir, "fire.config.json"),
      '{"llm": {"model": "m1"}, "passThreshold": 0.5}',
    );
    const cfg = await loadConfig(dir);
    expect(cfg.llm.model).toBe("m1");
    expect(cfg.llm.timeoutMs).toBe(60_000);
    expect(cfg.passThreshold).toBe(0.5);
  });

  it("names an unknown top-level key, the file and the line", async () => {
    const err = await configError(dir, '{\n  "sources": [],\n  "bogus": 1\n}');
    expect(err.message).toBe('unknown key "bogus"');
    expect(err.file).toBe(join(dir, "fire.config.json"));
    expect(err.line).toBe(3);
  });

  it("names an unknown nested key with its section", async () => {
    const err = await configError(dir, '{"llm": {"modle": "x"}}');
    expect(err.format()).toMatch(/fire\.config\.json:1: unknown key "llm\.modle"$/);
  });

  it("names a wrongly typed key", async () => {
    const err = await configError(dir, '{"passThreshold": "high"}');
    expect(err.message).toMatch(/^"passThreshold": /);
  });

  it("reports invalid JSON as an input error", async () => {
    const err = await configError(dir, "{ not json");
    expect(err.message).toMatch(/^invalid JSON/);
  });

  it("saves atomically what it is given and refuses an invalid config", async () => {
    await saveConfig(dir, { sources: ["a/"] });
    expect(JSON.parse(await readFile(join(dir, "fire.config.json"), "utf8"))).toEqual({
      sources: ["a/"],
    });
    await expect(saveConfig(dir, { sources: ["a/"], nope: 1 } as never)).rejects.toThrow(
      /unknown key "nope"/,
    );
    expect((await loadConfig(dir)).sources).toEqual(["a/"]);
  });

  it("updates keep the user's other keys as written", async () => {
    await writeFile(join(dir, "fire.config.json"), '{"outputCap": 100}');
    const cfg = await updateConfig(dir, (raw) => ({ ...raw, sources: ["x/"] }));
    expect(cfg.sources).toEqual(["x/"]);
    expect(JSON.parse(await readFile(join(dir, "fire.config.json"), "utf8"))).toEqual({
      outputCap: 100,
      sources: ["x/"],
    });
  });
});
