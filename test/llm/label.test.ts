import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Attempt } from "../../src/core/model/attempt.js";
import {
  type LabelOptions,
  type LlmConfigInput,
  labelAttempts,
  type RetryEvent,
} from "../../src/llm/index.js";
import { type ChatReply, type FakeOpenAI, startFakeOpenAI } from "../helpers/fake-openai.js";
import { goodAnswer, hitsFor, makeAttempt, PLANTED } from "./attempts.js";

const API_KEY = "sk-testkey-DoNotLeak0123456789abcdef";
const good: ChatReply = { kind: "json", answer: goodAnswer() };

let fake: FakeOpenAI;
let cacheDir: string;

beforeEach(async () => {
  fake = await startFakeOpenAI();
  cacheDir = await mkdtemp(join(tmpdir(), "fire-llm-"));
});
afterEach(async () => {
  await fake.close();
  await rm(cacheDir, { recursive: true, force: true });
});

function run(attempts: Attempt[], config: LlmConfigInput = {}, extra: Partial<LabelOptions> = {}) {
  return labelAttempts(attempts, {
    evidence: new Map(attempts.map((a) => [a.id, hitsFor(a)])),
    config: {
      model: "fake-model",
      concurrency: 4,
      timeoutMs: 5_000,
      backoffMs: 1,
      maxBackoffMs: 4,
      ...config,
    },
    cacheDir,
    apiKey: API_KEY,
    baseURL: fake.baseURL,
    ...extra,
  });
}

async function cacheText(dir: string): Promise<string> {
  const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((d) =>
    d.isFile(),
  );
  const texts = await Promise.all(files.map((f) => readFile(join(f.parentPath, f.name), "utf8")));
  return texts.join("\n");
}

describe("labelAttempts against a local OpenAI-compatible server", () => {
  it("labels every attempt with structured JSON-schema output", async () => {
    fake.respond = () => good;
    const attempts = ["a1", "a2", "a3"].map((id) => makeAttempt(id));
    const { labels, report } = await run(attempts);
    expect(labels.map((l) => l.attemptId)).toEqual(["a1", "a2", "a3"]);
    for (const l of labels) {
      expect(l.unlabelledReason).toBeUndefined();
      expect(l.source).toBe("llm");
      expect(l.model).toBe("fake-model");
      expect(l.mechanism).toBe("destructive cleanup after a successful deployment probe");
      expect(l.detectorIds).toEqual(["earlier-success", "destructive-after-probe"]);
      expect(l.family).toBe("deployment-preservation");
    }
    expect(report).toMatchObject({
      requests: 3,
      labelled: 3,
      unlabelled: 0,
      cacheHits: 0,
      outputMode: "json_schema",
    });
    expect(report.promptTokens).toBeGreaterThan(0);
    const rf = fake.chat[0].response_format;
    expect(rf.type).toBe("json_schema");
    expect(rf.json_schema.name).toBe("fire_label");
    expect(rf.json_schema.strict).toBe(true);
    expect([...rf.json_schema.schema.required].sort()).toEqual([
      "capabilityEvidence",
      "confidence",
      "evidence",
      "exclusion",
      "interventionPoint",
      "kind",
      "mechanism",
      "mechanismId",
      "preFailureState",
      "rationale",
      "secondReading",
      "status",
    ]);
    expect(fake.chat[0].model).toBe("fake-model");
    expect(fake.chat[0].messages[1].content).toMatch(/\[6\] tool_result/);
  });

  it("never sends planted secrets, and keeps the API key out of cache and report", async () => {
    fake.respond = () => good;
    // a budget large enough that every event (and every planted secret) is in the prompt
    const { report } = await run([makeAttempt("s1", 3)], { minPromptTokens: 3_000 });
    const received = fake.allReceived();
    for (const secret of Object.values(PLANTED)) expect(received).not.toContain(secret);
    expect(received).toContain("[REDACTED:assigned-secret]");
    for (const kind of [
      "openai-key",
      "github-token",
      "aws-access-key",
      "url-credentials",
      "assigned-secret",
    ])
      expect(received).toContain(`[REDACTED:${kind}]`);
    expect(fake.requests[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    const cached = await cacheText(cacheDir);
    expect(cached).toContain('"promptHash"');
    expect(cached).not.toContain(API_KEY);
    for (const secret of Object.values(PLANTED)) expect(cached).not.toContain(secret);
    expect(JSON.stringify(report)).not.toContain(API_KEY);
  });

  it("makes no request on a re-run over unchanged attempts", async () => {
    fake.respond = () => good;
    const attempts = ["c1", "c2", "c3"].map((id) => makeAttempt(id));
    const first = await run(attempts);
    expect(fake.chat).toHaveLength(3);
    const progress: number[] = [];
    const second = await run(attempts, {}, { onProgress: (p) => progress.push(p.cacheHits) });
    expect(fake.chat).toHaveLength(3);
    expect(second.report).toMatchObject({ requests: 0, cacheHits: 3, labelled: 3 });
    expect(second.labels).toEqual(first.labels);
    expect(progress.at(-1)).toBe(3);
    // a different model is a different cache key
    await run(attempts.slice(0, 1), { model: "other-model" });
    expect(fake.chat).toHaveLength(4);
  });

  it("retries a 429 after the server's retry-after-ms", async () => {
    fake.respond = (_b, n) =>
      n === 0
        ? {
            kind: "status",
            status: 429,
            headers: { "retry-after-ms": "1500" },
            body: { error: { message: "slow down" } },
          }
        : good;
    const retries: RetryEvent[] = [];
    // room for the server's wait (the suite's default bound, maxBackoffMs 4, would cut it)
    const { labels, report } = await run(
      [makeAttempt("r1")],
      { maxBackoffMs: 5_000 },
      { onRetry: (e) => retries.push(e) },
    );
    expect(labels[0]?.unlabelledReason).toBeUndefined();
    expect(retries).toEqual([
      { id: "r1", retry: 1, delayMs: expect.any(Number), reason: "rate_limit" },
    ]);
    // the delay is the wait that really passed: what the server asked for (1.5 s), not the
    // SDK's own backoff (375-500 ms). A floor tells them apart, as load only lengthens a wait
    // (an upper bound would have to stay under 375 ms, which a loaded machine can pass).
    // Node's timers start from the loop's cached clock, so one fires a few ms early by
    // Date.now(): the floor leaves 10 ms for that.
    expect(retries[0]?.delayMs).toBeGreaterThanOrEqual(1_490);
    expect(report).toMatchObject({ requests: 2, retries: 1, labelled: 1 });
  });

  it("retries a 500, and gives up after maxRetries with the reason kept", async () => {
    fake.respond = (_b, n) => (n === 0 ? { kind: "status", status: 500 } : good);
    const ok = await run([makeAttempt("e1")]);
    expect(ok.report).toMatchObject({ requests: 2, retries: 1, labelled: 1 });

    fake.respond = () => ({
      kind: "status",
      status: 503,
      body: { error: { message: "overloaded" } },
    });
    const bad = await run([makeAttempt("e2")], { maxRetries: 2 });
    expect(bad.report).toMatchObject({ requests: 3, retries: 2, labelled: 0, unlabelled: 1 });
    expect(bad.labels[0]?.unlabelledReason).toBe("HTTP 503: overloaded");
    expect(bad.report.failures).toEqual([{ id: "e2", reason: "HTTP 503: overloaded" }]);
  });

  it("times out a hanging request and retries it", async () => {
    fake.respond = (_b, n) => (n === 0 ? { kind: "hang" } : good);
    const retries: RetryEvent[] = [];
    const { labels, report } = await run(
      [makeAttempt("h1")],
      { timeoutMs: 250 },
      { onRetry: (e) => retries.push(e) },
    );
    expect(labels[0]?.unlabelledReason).toBeUndefined();
    expect(retries.map((r) => r.reason)).toEqual(["timeout"]);
    expect(report.requests).toBe(2);
  });

  it("repairs an invalid JSON answer with one follow-up request", async () => {
    fake.respond = (_b, n) => (n === 0 ? { kind: "text", content: "Sure! {not json" } : good);
    const { labels, report } = await run([makeAttempt("j1")]);
    expect(labels[0]?.unlabelledReason).toBeUndefined();
    expect(report).toMatchObject({ requests: 2, repairs: 1, labelled: 1 });
    const repair = fake.chat[1].messages;
    expect(repair.at(-2)).toEqual({ role: "assistant", content: "Sure! {not json" });
    expect(repair.at(-1).content).toMatch(/not valid JSON/);
  });

  it("keeps an attempt unlabelled when indices stay out of range after the repair", async () => {
    const bad = goodAnswer({ capabilityEvidence: [{ eventIndex: 999, why: "made up" }] });
    fake.respond = () => ({ kind: "json", answer: bad });
    const attempt = makeAttempt("o1");
    const { labels, report } = await run([attempt]);
    expect(fake.chat).toHaveLength(2);
    expect(fake.chat[1].messages.at(-1).content).toContain(
      "event indices 999 do not exist in this attempt (valid: 0..10)",
    );
    expect(labels[0]?.unlabelledReason).toMatch(
      /^invalid answer after repair: event indices 999 do not exist/,
    );
    expect(labels[0]?.mechanism).toBe("unlabelled");
    expect(report).toMatchObject({ labelled: 0, unlabelled: 1, repairs: 1 });
    // failures are not cached: a re-run asks again
    await run([attempt]);
    expect(fake.chat).toHaveLength(4);
  });

  it("falls back to json_object mode when the server rejects json_schema", async () => {
    fake.rejectJsonSchema = true;
    fake.respond = () => good;
    const { labels, report } = await run([makeAttempt("f1"), makeAttempt("f2")], {
      concurrency: 1,
    });
    expect(labels.every((l) => l.unlabelledReason === undefined)).toBe(true);
    expect(fake.chat.map((b) => b.response_format.type)).toEqual([
      "json_schema",
      "json_object",
      "json_object",
    ]);
    expect(fake.chat[1].messages.at(-1).content).toMatch(
      /^Reply with a single JSON object valid against this JSON Schema/,
    );
    expect(report.outputMode).toBe("json_object");
  });

  it("stops cleanly when the request budget is reached", { repeats: 20 }, async () => {
    fake.respond = () => good;
    const attempts = ["b1", "b2", "b3", "b4"].map((id) => makeAttempt(id));
    const { labels, report } = await run(attempts, { concurrency: 1, maxRequests: 2 });
    expect(fake.chat).toHaveLength(2);
    expect(labels.map((l) => l.unlabelledReason ?? "ok")).toEqual([
      "ok",
      "ok",
      "budget exhausted (maxRequests)",
      "budget exhausted (maxRequests)",
    ]);
    expect(report).toMatchObject({
      stoppedBy: "maxRequests",
      requests: 2,
      labelled: 2,
      unlabelled: 2,
    });
  });

  it("refuses a request that would pass the token or dollar budget", async () => {
    fake.respond = () => good;
    const tokens = await run([makeAttempt("t1")], { maxTokens: 500 });
    expect(fake.chat).toHaveLength(0);
    expect(tokens.report.stoppedBy).toBe("maxTokens");
    const dollars = await run([makeAttempt("t2")], {
      maxDollars: 0.01,
      pricing: { inputPerMTok: 10_000, outputPerMTok: 10_000 },
    });
    expect(fake.chat).toHaveLength(0);
    expect(dollars.labels[0]?.unlabelledReason).toBe("budget exhausted (maxDollars)");
  });

  it("never has more requests in flight than the concurrency limit", async () => {
    const total = 6;
    let held: (() => void)[] = [];
    fake.respond = () =>
      new Promise<ChatReply>((resolve) => {
        held.push(() => resolve(good));
        if (held.length === 2 || fake.chat.length === total) {
          const release = held;
          held = [];
          for (const r of release) r();
        }
      });
    const attempts = Array.from({ length: total }, (_, i) => makeAttempt(`p${i}`));
    const { report } = await run(attempts, { concurrency: 2 });
    expect(report.labelled).toBe(total);
    expect(fake.peakInflight).toBe(2);
  });

  it("stops on abort and reports it", async () => {
    const controller = new AbortController();
    fake.respond = () => {
      controller.abort();
      return { kind: "hang" };
    };
    const { labels, report } = await run(
      [makeAttempt("x1"), makeAttempt("x2")],
      { concurrency: 1 },
      { signal: controller.signal },
    );
    expect(labels.map((l) => l.unlabelledReason)).toEqual(["aborted", "aborted"]);
    expect(report.stoppedBy).toBe("aborted");
    expect(fake.chat).toHaveLength(1);
  });

  it("keeps the API key out of failure reasons even when the server echoes it", async () => {
    fake.respond = () => ({
      kind: "status",
      status: 401,
      body: { error: { message: "Incorrect API key provided: local-gw-7f3a9c2e11." } },
    });
    // a key no pattern knows: only the session's own scrub can catch it
    const { labels, report } = await run(
      [makeAttempt("k1")],
      {},
      { apiKey: "local-gw-7f3a9c2e11" },
    );
    expect(fake.chat).toHaveLength(1);
    expect(labels[0]?.unlabelledReason).toBe(
      "HTTP 401: Incorrect API key provided: [REDACTED:bearer-token].",
    );
    expect(JSON.stringify({ labels, report })).not.toContain("local-gw-7f3a9c2e11");
  });

  it("does not mistake an unrelated 400 for missing JSON-schema support", async () => {
    fake.respond = () => ({
      kind: "status",
      status: 400,
      body: { error: { message: "context length exceeded" } },
    });
    const { labels, report } = await run([makeAttempt("u1")]);
    expect(fake.chat).toHaveLength(1);
    expect(report.outputMode).toBe("json_schema");
    expect(labels[0]?.unlabelledReason).toBe("HTTP 400: context length exceeded");
  });
});
