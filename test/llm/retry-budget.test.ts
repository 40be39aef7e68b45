import { describe, expect, it } from "vitest";
import { Budget } from "../../src/llm/budget.js";
import { askedWaitMs } from "../../src/llm/transport.js";

describe("the server's wait", () => {
  it("reads retry-after-ms, retry-after seconds and retry-after dates", () => {
    expect(askedWaitMs(new Headers({ "retry-after-ms": "250" }))).toBe(250);
    expect(askedWaitMs(new Headers({ "retry-after": "3" }))).toBe(3000);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(askedWaitMs(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }), now)).toBe(
      5000,
    );
    expect(askedWaitMs(new Headers({}))).toBeUndefined();
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

  it("prices Batch API usage at the Batch rate: half by default, or as configured", () => {
    const half = new Budget({}, { inputPerMTok: 1_000, outputPerMTok: 2_000 });
    const r = half.reserve(400, 100, "batch");
    expect(r).toMatchObject({ ok: true, dollars: 0.3 });
    if (r.ok)
      expect(half.settle(r, { promptTokens: 400, completionTokens: 50 }, "batch")).toBeCloseTo(
        0.25,
      );
    const set = new Budget(
      {},
      {
        inputPerMTok: 1_000,
        outputPerMTok: 2_000,
        batchInputPerMTok: 100,
        batchOutputPerMTok: 200,
      },
    );
    const r2 = set.reserve(1_000, 1_000, "batch");
    expect(r2).toMatchObject({ ok: true, dollars: 0.3 });
  });
});
