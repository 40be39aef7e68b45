import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defaultConfig, loadConfig } from "../../src/core/workspace/config.js";
import { createSession, LlmConfig, structuredCall } from "../../src/llm/index.js";
import { configError } from "../helpers/config-error.js";
import { type FakeOpenAI, startFakeOpenAI } from "../helpers/fake-openai.js";

const CLIENT_SETTINGS = {
  model: "fake-model",
  concurrency: 2,
  timeoutMs: 5_000,
  requestDeadlineMs: 9_000,
  maxResponseBytes: 123_456,
  maxRunMs: 60_000,
  maxRequests: 50,
  maxTokens: 100_000,
  maxDollars: 1,
  maxRetries: 0,
  backoffMs: 10,
  maxBackoffMs: 20,
  maxPromptTokens: 900,
  promptShare: 0.1,
  minPromptTokens: 120,
  maxOutputTokens: 333,
  pricing: { inputPerMTok: 1_000, outputPerMTok: 2_000 },
  batchPollMs: 250,
  nameUncorroborated: true,
};

let dir: string;
let fake: FakeOpenAI;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "fire-llm-config-"));
  fake = await startFakeOpenAI();
});
afterEach(async () => {
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

describe("the llm section of fire.config.json carries the client's settings", () => {
  it("defaults in the file schema are the client's defaults", () => {
    const fromFile = defaultConfig().llm;
    expect(fromFile).toEqual(LlmConfig.parse({}));
    expect(fromFile).toMatchObject({
      maxRetries: 3,
      backoffMs: 1_000,
      maxBackoffMs: 30_000,
      maxPromptTokens: 8_000,
      promptShare: 0.2,
      minPromptTokens: 2_000,
      maxOutputTokens: 1_200,
      batchPollMs: 15_000,
    });
    expect(fromFile.pricing).toBeUndefined();
  });

  it("loads a config with every client setting, and the client uses them", async () => {
    await writeFile(
      join(dir, "fire.config.json"),
      JSON.stringify({ llm: CLIENT_SETTINGS }, null, 2),
    );
    const cfg = await loadConfig(dir);
    expect(cfg.llm).toEqual(CLIENT_SETTINGS);

    const session = createSession(cfg.llm, {
      cacheDir: join(dir, "cache"),
      apiKey: "k",
      baseURL: fake.baseURL,
    });
    expect(session.config).toEqual(CLIENT_SETTINGS);
    const spec = { schema: z.strictObject({ ok: z.boolean() }), name: "t", version: "1" };
    // maxOutputTokens goes on the wire; pricing turns usage into dollars
    fake.respond = () => ({ kind: "json", answer: { ok: true } });
    const good = await structuredCall(spec, [{ role: "user", content: "abcd".repeat(10) }], {
      id: "a",
      session,
    });
    expect(good).toMatchObject({ ok: true, cached: false });
    expect(fake.chat[0].max_completion_tokens).toBe(333);
    const { promptTokens, completionTokens } = session.report;
    expect(promptTokens).toBeGreaterThan(0);
    expect(session.report.costUsd).toBeCloseTo(
      (promptTokens * 1_000 + completionTokens * 2_000) / 1e6,
      9,
    );
    expect(session.report.costUsd).toBeGreaterThan(0);
    // maxRetries 0: a 500 is not retried
    fake.respond = () => ({ kind: "status", status: 500 });
    const bad = await structuredCall(spec, [{ role: "user", content: "other" }], {
      id: "b",
      session,
    });
    expect(bad).toMatchObject({ ok: false, stopped: false });
    expect(fake.chat).toHaveLength(2);
    expect(session.report.retries).toBe(0);
  });

  it("an unknown llm key is still an error naming the key and its line", async () => {
    const err = await configError(
      dir,
      '{\n  "llm": {\n    "model": "m",\n    "retries": 2\n  }\n}',
    );
    expect(err.format()).toMatch(/fire\.config\.json:4: unknown key "llm\.retries"$/);
  });

  it("an out-of-range setting names its path", async () => {
    const err = await configError(dir, '{"llm": {"maxRetries": 11}}');
    expect(err.format()).toContain('"llm.maxRetries"');
    const price = await configError(dir, '{"llm": {"pricing": {"inputPerMTok": 1}}}');
    expect(price.format()).toContain('"llm.pricing.outputPerMTok"');
  });
});
