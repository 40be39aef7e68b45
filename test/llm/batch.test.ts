import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Attempt } from "../../src/core/model/attempt.js";
import { type LabelOptions, labelAttempts } from "../../src/llm/index.js";
import { type ChatReply, type FakeOpenAI, startFakeOpenAI } from "../helpers/fake-openai.js";
import { goodAnswer, hitsFor, makeAttempt, PLANTED } from "./attempts.js";

const good: ChatReply = { kind: "json", answer: goodAnswer() };
let fake: FakeOpenAI;
let cacheDir: string;

beforeEach(async () => {
  fake = await startFakeOpenAI();
  cacheDir = await mkdtemp(join(tmpdir(), "fire-batch-"));
});
afterEach(async () => {
  await fake.close();
  await rm(cacheDir, { recursive: true, force: true });
});

function run(attempts: Attempt[], extra: Partial<LabelOptions> = {}) {
  return labelAttempts(attempts, {
    evidence: new Map(attempts.map((a) => [a.id, hitsFor(a)])),
    config: { model: "fake-model", batchPollMs: 1, backoffMs: 1, maxBackoffMs: 2 },
    cacheDir,
    apiKey: "sk-batchkey-0123456789abcdefghij",
    baseURL: fake.baseURL,
    batch: true,
    ...extra,
  });
}

const routes = (f: FakeOpenAI) =>
  f.requests.map((r) => `${r.method} ${r.path.replace(/(file|batch)[-_][0-9a-f-]+/g, "$1:ID")}`);

describe("--batch through the files and batches endpoints", () => {
  it("uploads JSONL, creates a batch, polls, downloads, caches", async () => {
    fake.respond = () => good;
    const attempts = ["q1", "q2", "q3"].map((id) => makeAttempt(id));
    const { labels, report } = await run(attempts);
    expect(labels.map((l) => l.unlabelledReason ?? "ok")).toEqual(["ok", "ok", "ok"]);
    expect(routes(fake)).toEqual([
      "POST /v1/files",
      "POST /v1/batches",
      "GET /v1/batches/batch:ID",
      "GET /v1/batches/batch:ID",
      "GET /v1/files/file:ID/content",
    ]);
    const upload = fake.requests[0]?.raw ?? "";
    expect(upload).toContain('"url":"/v1/chat/completions"');
    expect(upload.match(/"custom_id"/g)).toHaveLength(3);
    for (const secret of Object.values(PLANTED)) expect(upload).not.toContain(secret);
    expect(report).toMatchObject({
      requests: 3,
      labelled: 3,
      batch: { status: "completed", resumed: false },
    });
    expect(await readdir(join(cacheDir, "batches"))).toEqual([]);

    const before = fake.requests.length;
    const again = await run(attempts);
    expect(fake.requests.length).toBe(before);
    expect(again.report).toMatchObject({ requests: 0, cacheHits: 3 });
  });

  it("a failed batch reports the server's errors and labels nothing", async () => {
    fake.respond = () => good;
    fake.batchErrors = [
      { code: "invalid_request", message: "model fake-model is not batchable", line: 1 },
      { code: "token_limit_exceeded", message: "enqueued token limit reached" },
    ];
    const { labels, report } = await run(["f1", "f2"].map((id) => makeAttempt(id)));
    expect(report.batch).toMatchObject({
      status: "failed",
      errors: [
        "invalid_request (line 1): model fake-model is not batchable",
        "token_limit_exceeded: enqueued token limit reached",
      ],
    });
    for (const l of labels) expect(l.unlabelledReason).toMatch(/batch .* failed: invalid_request/);
    expect(report.costUsd).toBe(0);
  });

  it("resumes the same batch after a restart instead of submitting again", async () => {
    fake.respond = () => good;
    fake.batchPolls = 1_000;
    const controller = new AbortController();
    fake.onRequest = (r) => {
      if (r.method === "GET" && r.path.startsWith("/v1/batches/")) controller.abort();
    };
    const attempts = ["w1", "w2"].map((id) => makeAttempt(id));
    const first = await run(attempts, { signal: controller.signal });
    expect(first.labels.map((l) => l.unlabelledReason)).toEqual([
      expect.stringMatching(/^aborted: batch batch_.* continues; re-run to resume$/),
      expect.stringMatching(/^aborted: batch/),
    ]);
    expect(first.report.stoppedBy).toBe("aborted");
    expect(await readdir(join(cacheDir, "batches"))).toHaveLength(1);

    fake.onRequest = undefined;
    fake.batchPolls = 0;
    const uploads = () => fake.requests.filter((r) => r.method === "POST").length;
    expect(uploads()).toBe(2);
    const second = await run(attempts);
    expect(uploads()).toBe(2);
    expect(second.labels.map((l) => l.unlabelledReason ?? "ok")).toEqual(["ok", "ok"]);
    expect(second.report.batch).toMatchObject({
      status: "completed",
      resumed: true,
      id: first.report.batch?.id,
    });
  });

  it("repairs a bad batch answer with one live request", async () => {
    const bad = goodAnswer({ preFailureState: { eventIndex: 77, description: "nowhere" } });
    fake.respond = (body) => {
      const isRepair = body.messages.some((m: { role: string }) => m.role === "assistant");
      const user = body.messages[1].content as string;
      return !isRepair && user.startsWith("Attempt v2 ") ? { kind: "json", answer: bad } : good;
    };
    const { labels, report } = await run(["v1", "v2"].map((id) => makeAttempt(id)));
    expect(labels.map((l) => l.unlabelledReason ?? "ok")).toEqual(["ok", "ok"]);
    expect(fake.requests.filter((r) => r.path === "/v1/chat/completions")).toHaveLength(1);
    expect(report.repairs).toBe(1);
  });

  it("keeps attempts unlabelled with the reason when the batch cannot be created", async () => {
    fake.respond = () => good;
    fake.override = (r) =>
      r.path === "/v1/batches"
        ? { status: 500, body: { error: { message: "batch service down" } } }
        : undefined;
    const { labels, report } = await run([makeAttempt("z1")], {
      config: { model: "fake-model", maxRetries: 1, batchPollMs: 1 },
    });
    expect(labels[0]?.unlabelledReason).toBe(
      "batch submission failed: HTTP 500: batch service down",
    );
    expect(fake.requests.filter((r) => r.path === "/v1/batches")).toHaveLength(2);
    expect(report).toMatchObject({ labelled: 0, unlabelled: 1 });
    expect(report.stoppedBy).toBeUndefined();
  });

  it("retries a line the batch answered with an error once, live", async () => {
    let failedOnce = false;
    fake.respond = (body) => {
      const user = body.messages[1].content as string;
      if (!failedOnce && user.startsWith("Attempt y2 ")) {
        failedOnce = true;
        return {
          kind: "status",
          status: 400,
          body: { error: { message: "json_schema unsupported" } },
        };
      }
      return good;
    };
    const { labels, report } = await run(["y1", "y2"].map((id) => makeAttempt(id)));
    expect(labels.map((l) => l.unlabelledReason ?? "ok")).toEqual(["ok", "ok"]);
    expect(fake.requests.filter((r) => r.path === "/v1/chat/completions")).toHaveLength(1);
    expect(report).toMatchObject({ labelled: 2, requests: 3 });
  });
});
