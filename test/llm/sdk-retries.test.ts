import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createSession,
  type RetryEvent,
  type StructuredSpec,
  structuredCall,
} from "../../src/llm/index.js";
import { type FakeOpenAI, startFakeOpenAI } from "../helpers/fake-openai.js";

const Ok = z.strictObject({ ok: z.boolean() });
const spec: StructuredSpec<z.infer<typeof Ok>> = { schema: Ok, name: "ok", version: "1" };
const good = { kind: "json" as const, answer: { ok: true } };

let fake: FakeOpenAI;
let cacheDir: string;
beforeEach(async () => {
  fake = await startFakeOpenAI();
  cacheDir = await mkdtemp(join(tmpdir(), "fire-sdk-retries-"));
});
afterEach(async () => {
  await fake.close();
  await rm(cacheDir, { recursive: true, force: true });
});

function session(llm: Record<string, unknown> = {}, retries?: RetryEvent[]) {
  return createSession(
    { model: "m", maxRetries: 3, ...llm },
    {
      cacheDir,
      apiKey: "sk-test-key-000000",
      baseURL: fake.baseURL,
      onRetry: (e) => retries?.push(e),
    },
  );
}

const ask = (s: ReturnType<typeof session>, id = "a") =>
  structuredCall(spec, [{ role: "user", content: `question ${id}` }], { id, session: s });

describe("the SDK's retries, through fire's transport (real openai client, loopback server)", () => {
  it("waits what retry-after says, then retries", async () => {
    fake.respond = (_b, n) =>
      n === 0 ? { kind: "status", status: 429, headers: { "retry-after": "1" } } : good;
    const retries: RetryEvent[] = [];
    const s = session({}, retries);
    const r = await ask(s);
    expect(r).toMatchObject({ ok: true });
    expect(fake.chat).toHaveLength(2);
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ id: "a", retry: 1, reason: "rate_limit" });
    expect(retries[0]?.delayMs).toBeGreaterThanOrEqual(950);
    expect(s.report).toMatchObject({ requests: 2, retries: 1 });
  });

  it("does not retry when the server says x-should-retry: false", async () => {
    fake.respond = () => ({
      kind: "status",
      status: 503,
      headers: { "x-should-retry": "false" },
      body: { error: { message: "down for good" } },
    });
    const s = session();
    const r = await ask(s);
    expect(r).toMatchObject({ ok: false, stopped: false });
    if (!r.ok) expect(r.reason).toContain("HTTP 503");
    expect(fake.chat).toHaveLength(1);
    expect(s.report.retries).toBe(0);
  });

  it("retries 408 (request timeout) and 409 (lock timeout)", async () => {
    fake.respond = (_b, n) =>
      n === 0 ? { kind: "status", status: 408 } : n === 1 ? { kind: "status", status: 409 } : good;
    const retries: RetryEvent[] = [];
    const r = await ask(session({}, retries));
    expect(r).toMatchObject({ ok: true });
    expect(fake.chat).toHaveLength(3);
    expect(retries.map((e) => e.reason)).toEqual(["timeout", "conflict"]);
  });

  it("lowers a huge retry-after to maxBackoffMs (a 429 storm cannot park the run)", async () => {
    fake.respond = (_b, n) =>
      n < 2 ? { kind: "status", status: 429, headers: { "retry-after": "999999" } } : good;
    const retries: RetryEvent[] = [];
    const t0 = Date.now();
    const r = await ask(session({ maxBackoffMs: 50 }, retries));
    expect(r).toMatchObject({ ok: true });
    expect(retries).toHaveLength(2);
    expect(Date.now() - t0).toBeLessThan(20_000); // a ceiling for a hang, not a speed target
  });

  it("ends a wait at once when the run is aborted", async () => {
    fake.respond = () => ({ kind: "status", status: 429, headers: { "retry-after": "30" } });
    const ac = new AbortController();
    const s = createSession(
      { model: "m", maxRetries: 3, maxBackoffMs: 30_000 },
      { cacheDir, apiKey: "k", baseURL: fake.baseURL, signal: ac.signal },
    );
    const t0 = Date.now();
    const pending = ask(s);
    setTimeout(() => ac.abort(), 200);
    const r = await pending;
    expect(r).toMatchObject({ ok: false, stopped: true });
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(s.report.stoppedBy).toBe("aborted");
  });
});

describe("slow and hostile servers", () => {
  it("a dripping body is cut off by the request deadline", async () => {
    fake.respond = () => ({ kind: "drip", everyMs: 50 });
    const t0 = Date.now();
    const r = await ask(session({ requestDeadlineMs: 800, timeoutMs: 60_000, maxRetries: 0 }));
    expect(r).toMatchObject({ ok: false, stopped: false });
    if (!r.ok) expect(r.reason).toMatch(/no complete answer within requestDeadlineMs \(800 ms\)/);
    expect(Date.now() - t0).toBeLessThan(15_000);
  });

  it("the run's wall-clock budget stops every later request", async () => {
    fake.respond = () => ({ kind: "drip", everyMs: 50 });
    const s = session({ maxRunMs: 600, requestDeadlineMs: 60_000, maxRetries: 0 });
    const first = await ask(s, "one");
    expect(first).toMatchObject({ ok: false, stopped: true });
    const second = await ask(s, "two");
    expect(second).toMatchObject({ ok: false, stopped: true });
    if (!second.ok) expect(second.reason).toMatch(/run time budget spent/);
    expect(s.report.stoppedBy).toBe("maxRunMs");
  });

  it("a 10 MB answer without choices is a clear failure, not a TypeError", async () => {
    fake.respond = () => ({ kind: "raw", body: { id: "x", junk: "z".repeat(10_000_000) } });
    const r = await ask(session({ maxRetries: 0, maxResponseBytes: 16 * 1024 * 1024 }));
    expect(r).toMatchObject({ ok: false, stopped: false });
    if (!r.ok) {
      expect(r.reason).toMatch(/not a chat completion \(choices: .*; 10\.0 MB\)/);
      expect(r.reason).not.toMatch(/TypeError|Cannot read/);
      expect(r.reason.length).toBeLessThan(300);
    }
  });
});
