import { APIConnectionTimeoutError, APIError, BadRequestError, RateLimitError } from "openai";
import { describe, expect, it } from "vitest";
import { Budget } from "../../src/llm/budget.js";
import { backoffDelay, classifyError, retryAfterMs } from "../../src/llm/retry.js";

const rateLimited = (headers: Record<string, string>) =>
  APIError.generate(429, { error: { message: "slow" } }, undefined, new Headers(headers));

describe("retry timing", () => {
  it("follows retry-after-ms, retry-after seconds and retry-after dates", () => {
    expect(retryAfterMs(rateLimited({ "retry-after-ms": "250" }))).toBe(250);
    expect(retryAfterMs(rateLimited({ "retry-after": "3" }))).toBe(3000);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs(rateLimited({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }), now)).toBe(
      5000,
    );
    expect(retryAfterMs(rateLimited({}))).toBeUndefined();
    expect(
      backoffDelay(5, rateLimited({ "retry-after": "2" }), { backoffMs: 1, maxBackoffMs: 10 }),
    ).toBe(2000);
  });

  it("backs off exponentially with jitter, capped", () => {
    const opts = { backoffMs: 100, maxBackoffMs: 1_000 };
    for (let i = 0; i < 50; i++) {
      const d0 = backoffDelay(0, rateLimited({}), opts);
      expect(d0).toBeGreaterThanOrEqual(50);
      expect(d0).toBeLessThanOrEqual(100);
      const d2 = backoffDelay(2, rateLimited({}), opts);
      expect(d2).toBeGreaterThanOrEqual(200);
      expect(d2).toBeLessThanOrEqual(400);
      expect(backoffDelay(9, rateLimited({}), opts)).toBeLessThanOrEqual(1_000);
    }
  });

  it("classifies what is worth a retry", () => {
    expect(rateLimited({})).toBeInstanceOf(RateLimitError);
    expect(classifyError(rateLimited({}))).toBe("rate_limit");
    expect(classifyError(APIError.generate(502, undefined, "bad gateway", new Headers()))).toBe(
      "server_error",
    );
    expect(classifyError(new APIConnectionTimeoutError())).toBe("timeout");
    const bad = APIError.generate(400, { error: { message: "nope" } }, undefined, new Headers());
    expect(bad).toBeInstanceOf(BadRequestError);
    expect(classifyError(bad)).toBe("fatal");
  });
});

describe("Budget", () => {
  it("counts in-flight reservations at their worst case and closes for good once refused", () => {
    const b = new Budget({ maxTokens: 1_000 }, undefined);
    const r1 = b.reserve(300, 200);
    const r2 = b.reserve(300, 200);
    expect(r1.ok && r2.ok).toBe(true);
    expect(b.reserve(1, 0)).toEqual({ ok: false, limit: "maxTokens" });
    if (r1.ok) b.settle(r1, { promptTokens: 100, completionTokens: 50 });
    expect(b.tokens).toBe(150);
    expect(b.reserve(1, 0)).toEqual({ ok: false, limit: "maxTokens" });
  });

  it("prices usage and stops before passing maxDollars", () => {
    const b = new Budget({ maxDollars: 1 }, { inputPerMTok: 1_000, outputPerMTok: 2_000 });
    const r = b.reserve(400, 100); // $0.4 + $0.2
    expect(r.ok).toBe(true);
    if (r.ok) expect(b.settle(r, { promptTokens: 400, completionTokens: 50 })).toBeCloseTo(0.5);
    expect(b.reserve(400, 100)).toEqual({ ok: false, limit: "maxDollars" });
    expect(b.requests).toBe(1);
  });
});
