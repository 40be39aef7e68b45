import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createSession,
  LlmUnavailableError,
  type StructuredSpec,
  structuredCall,
} from "../../src/llm/index.js";
import { type FakeOpenAI, startFakeOpenAI } from "../helpers/fake-openai.js";

const ClusterName = z.strictObject({ name: z.string().min(1), mergeWith: z.array(z.string()) });
const spec: StructuredSpec<z.infer<typeof ClusterName>> = {
  schema: ClusterName,
  name: "cluster_name",
  version: "1",
};

let fake: FakeOpenAI;
let cacheDir: string;
beforeEach(async () => {
  fake = await startFakeOpenAI();
  cacheDir = await mkdtemp(join(tmpdir(), "fire-structured-"));
});
afterEach(async () => {
  await fake.close();
  await rm(cacheDir, { recursive: true, force: true });
});

describe("structuredCall (shared by cluster naming and drafting)", () => {
  it("answers any zod schema, redacts, caches and shares the budget", async () => {
    fake.respond = () => ({
      kind: "json",
      answer: { name: "Stop without check", mergeWith: ["c2"] },
    });
    const session = createSession(
      { model: "m", maxRequests: 1 },
      { cacheDir, apiKey: "k", baseURL: fake.baseURL },
    );
    const messages = [
      {
        role: "user" as const,
        content: "Name cluster c1. ssh key: ghp_abcdefghijklmnopqrstuvwxyz0123456789",
      },
    ];
    const first = await structuredCall(spec, messages, { id: "c1", session });
    expect(first).toEqual({
      ok: true,
      value: { name: "Stop without check", mergeWith: ["c2"] },
      cached: false,
    });
    expect(fake.chat[0].response_format.json_schema.name).toBe("cluster_name");
    // the SDK's zodResponseFormat: strict, every property required, no extra keys
    expect(fake.chat[0].response_format.json_schema).toMatchObject({
      strict: true,
      schema: { required: ["name", "mergeWith"], additionalProperties: false },
    });
    expect(fake.allReceived()).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz0123456789");

    const again = await structuredCall(spec, messages, { id: "c1", session });
    expect(again).toMatchObject({ ok: true, cached: true });
    expect(fake.chat).toHaveLength(1);

    const other = await structuredCall(spec, [{ role: "user", content: "Name cluster c3." }], {
      id: "c3",
      session,
    });
    expect(other).toEqual({ ok: false, reason: "budget exhausted (maxRequests)", stopped: true });
    expect(session.report).toMatchObject({ requests: 1, cacheHits: 1, stoppedBy: "maxRequests" });
  });

  it("a schema version bump misses the cache", async () => {
    fake.respond = () => ({ kind: "json", answer: { name: "n", mergeWith: [] } });
    const session = createSession({ model: "m" }, { cacheDir, apiKey: "k", baseURL: fake.baseURL });
    const messages = [{ role: "user" as const, content: "Name cluster c1." }];
    await structuredCall(spec, messages, { id: "c1", session });
    await structuredCall({ ...spec, version: "2" }, messages, { id: "c1", session });
    expect(fake.chat).toHaveLength(2);
    // each version is cached under its own key: asking both again sends nothing
    await structuredCall(spec, messages, { id: "c1", session });
    await structuredCall({ ...spec, version: "2" }, messages, { id: "c1", session });
    expect(fake.chat).toHaveLength(2);
    expect(session.report).toMatchObject({ requests: 2, cacheHits: 2 });
  });

  it("refuses to start without a key or an endpoint", () => {
    expect(() => createSession({}, { cacheDir, env: {} })).toThrow(LlmUnavailableError);
    expect(
      createSession({}, { cacheDir, env: { OPENAI_BASE_URL: fake.baseURL } }).openai.baseURL,
    ).toBe(fake.baseURL);
  });
});

describe("answers that echo secrets", () => {
  it("are redacted before they are cached or returned", async () => {
    const leaked = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";
    fake.respond = () => ({
      kind: "json",
      answer: { name: `Cluster using ${leaked} and mysql -pHunter2x`, mergeWith: [] },
    });
    const session = createSession({ model: "m" }, { cacheDir, apiKey: "k", baseURL: fake.baseURL });
    const messages = [{ role: "user" as const, content: "Name cluster c9." }];
    const first = await structuredCall(spec, messages, { id: "c9", session });
    expect(first.ok).toBe(true);
    const shown = JSON.stringify(first);
    expect(shown).not.toContain(leaked);
    expect(shown).not.toContain("Hunter2x");
    expect(shown).toContain("[REDACTED:stripe-key]");
    const files = (await readdir(cacheDir, { recursive: true })).filter((f) => f.endsWith(".json"));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const text = await readFile(join(cacheDir, f), "utf8");
      expect(text).not.toContain(leaked);
      expect(text).not.toContain("Hunter2x");
    }
    const again = await structuredCall(spec, messages, { id: "c9", session });
    expect(again).toMatchObject({ ok: true, cached: true });
    expect(JSON.stringify(again)).not.toContain(leaked);
  });
});
