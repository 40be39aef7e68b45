import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/core/workspace/config.js";
import { cachedConfig } from "../../src/core/workspace/config-cache.js";
import { currentHead } from "../../src/core/workspace/head.js";
import { workspacePaths } from "../../src/core/workspace/paths.js";
import { fireIn } from "../helpers/cli.js";
import { fixture } from "../helpers/paths.js";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** A workspace of its own copy of the OpenClaw trials (so a test may change a source). */
function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), "fire-read-cache-"));
  made.push(dir);
  cpSync(fixture("harbor-openclaw"), join(dir, "traces"), { recursive: true });
  writeFileSync(join(dir, "fire.config.json"), JSON.stringify({ sources: ["traces/"] }));
  return dir;
}

const READS = [
  ["triage"],
  ["triage", "--json"],
  ["clusters"],
  ["route"],
  ["attempts"],
  ["attempts", "--failed", "--json"],
];

/** Each read command's output, and its exit status, in `dir`. */
async function reads(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const args of READS) {
    const r = await fireIn(args, { cwd: dir });
    expect(r.status, r.stderr).toBe(0);
    out.push(r.stdout);
  }
  return out;
}

/** The outputs computed with no cache (all but the last mining run's labels removed first). */
async function computed(dir: string): Promise<string[]> {
  const { cache, labels } = workspacePaths(dir);
  for (const n of readdirSync(cache))
    if (join(cache, n) !== labels) rmSync(join(cache, n), { recursive: true });
  return reads(dir);
}

describe("read commands from the index head and their caches", () => {
  it("answer as computed; a changed source, a bad head or cache is never served", async () => {
    const dir = workspace();
    expect((await fireIn(["mine"], { cwd: dir })).status).toBe(0);
    // the mine kept the triage its new labels give (text, cache, the workbench's glance)
    const { triageText, triageCache, triageGlance } = workspacePaths(dir);
    expect([triageText, triageCache, triageGlance].map((f) => existsSync(f))).toEqual([
      true,
      true,
      true,
    ]);
    const first = await reads(dir); // computed, and kept
    expect(first[2]).toMatch(/cluster\(s\):/);
    const head = await currentHead(dir);
    expect(head?.digest).toBeDefined();
    expect(await reads(dir)).toEqual(first); // from the head and the caches
    expect(await computed(dir)).toEqual(first);

    // a source changed: the head no longer matches, the reads follow the new attempts
    const job = join(dir, "traces", "clawbench-19-kimi2.6");
    rmSync(join(job, readdirSync(job).find((n) => /__/.test(n))!), { recursive: true });
    expect(await currentHead(dir)).toBeUndefined();
    const changed = await reads(dir);
    expect(changed[0]).not.toEqual(first[0]);
    expect(await currentHead(dir)).toBeDefined(); // the read wrote the new index and head
    expect(await reads(dir)).toEqual(changed);

    // a head whose bytes are not the ones fire wrote is not used; the answers stay right
    const headFile = `${workspacePaths(dir).index}.head`;
    writeFileSync(headFile, readFileSync(headFile, "utf8").replace(/"units":\[/, '"units":["x",'));
    expect(await currentHead(dir)).toBeUndefined();
    expect(await reads(dir)).toEqual(changed);
    // a cache whose bytes were edited is computed again, not served
    const triage = workspacePaths(dir).triageCache;
    writeFileSync(triage, readFileSync(triage, "utf8").replace(/"passes":\d+/g, '"passes":99'));
    const kept = join(workspacePaths(dir).texts, "attempts.txt");
    writeFileSync(kept, readFileSync(kept, "utf8").replaceAll("fail", "pass"));
    const text = workspacePaths(dir).triageText;
    writeFileSync(text, readFileSync(text, "utf8").replace(/ \d+\/\d+ /g, " 99/99 "));
    expect(await reads(dir)).toEqual(changed);
    expect(await computed(dir)).toEqual(changed);
  });

  it("keeps the config's checked value per file content, and checks every other", async () => {
    const dir = workspace();
    const cache = workspacePaths(dir).configCache;
    expect(await cachedConfig(dir)).toEqual(await loadConfig(dir)); // checked, kept
    expect(existsSync(cache)).toBe(true);
    const kept = statSync(cache).mtimeMs;
    expect(await cachedConfig(dir)).toEqual(await loadConfig(dir)); // served
    expect(statSync(cache).mtimeMs).toBe(kept);

    // an edit of the config is checked again (its bytes are another key)
    writeFileSync(
      join(dir, "fire.config.json"),
      JSON.stringify({ sources: ["traces/"], passThreshold: 0.5 }),
    );
    expect((await cachedConfig(dir)).passThreshold).toBe(0.5);
    // a config the schema rejects fails as it does without the cache
    writeFileSync(join(dir, "fire.config.json"), JSON.stringify({ sources: ["traces/"], x: 1 }));
    await expect(cachedConfig(dir)).rejects.toThrow(/unknown key "x"/);
    await expect(loadConfig(dir)).rejects.toThrow(/unknown key "x"/);
    // a cache edited by hand (not matching its stamp) is not served
    writeFileSync(join(dir, "fire.config.json"), JSON.stringify({ sources: ["traces/"] }));
    await cachedConfig(dir);
    writeFileSync(cache, readFileSync(cache, "utf8").replace('"traces/"', '"elsewhere/"'));
    expect((await cachedConfig(dir)).sources).toEqual(["traces/"]);
  });
});
