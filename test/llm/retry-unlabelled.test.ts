import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serializeAttempt } from "../../src/core/ingest/fire-jsonl.js";
import { fireIn } from "../helpers/cli.js";
import { type ChatBody, type FakeOpenAI, startFakeOpenAI } from "../helpers/fake-openai.js";
import { answerCitingFirstShown, makeAttempt } from "./attempts.js";

interface MinedLabel {
  attemptId: string;
  source: string;
  unlabelledReason?: string;
}

/** Which attempt a labelling request is about (the prompt's header names it). */
const attemptOf = (body: ChatBody): string =>
  String(body.messages[1]?.content ?? "").match(/^Attempt (\S+) /)?.[1] ?? "?";

describe("fire mine --labeler llm: cached re-runs and --retry-unlabelled (loopback server)", () => {
  let fake: FakeOpenAI;
  let ws: string;
  /** The server fails every request for these attempts (a 400: not retried by the SDK). */
  const failing = new Set<string>();
  const env = () => ({
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_API_KEY: "sk-retry-test-0123456789abcdefghij",
  });
  const mine = async (...extra: string[]) => {
    const r = await fireIn(["mine", "--labeler", "llm", "--json", ...extra], {
      cwd: ws,
      env: env(),
    });
    expect(r.status, r.stderr).toBe(0);
    const labels = (JSON.parse(r.stdout) as { labels: MinedLabel[] }).labels;
    return new Map(labels.map((l) => [l.attemptId, l]));
  };

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    fake.respond = (body) =>
      failing.has(attemptOf(body))
        ? { kind: "status", status: 400, body: { error: { message: "context length exceeded" } } }
        : answerCitingFirstShown(body);
    ws = await mkdtemp(join(tmpdir(), "fire-retry-unlabelled-"));
    await mkdir(join(ws, "traces"));
    const attempts = ["ok-1", "ok-2", "flaky-3"].map((id) => makeAttempt(id));
    await writeFile(
      join(ws, "traces", "attempts.jsonl"),
      `${attempts.map((a) => serializeAttempt(a)).join("\n")}\n`,
    );
    await writeFile(
      join(ws, "fire.config.json"),
      JSON.stringify({ sources: ["traces/"], llm: { model: "fake-model", maxRetries: 0 } }),
    );
  });
  afterAll(async () => {
    await fake.close();
    await rm(ws, { recursive: true, force: true });
  });

  it("re-runs send 0 requests; an unlabelled attempt is asked again only with the flag", async () => {
    failing.add("flaky-3");
    const first = await mine();
    expect(fake.chat.map(attemptOf).sort()).toEqual(["flaky-3", "ok-1", "ok-2"]);
    expect(first.get("flaky-3")?.unlabelledReason).toBe("HTTP 400: context length exceeded");
    expect(first.get("ok-1")?.unlabelledReason).toBeUndefined();

    // the server would answer now, but a cached re-run asks nothing, not even for flaky-3
    failing.clear();
    const second = await mine();
    expect(fake.chat).toHaveLength(3);
    expect(second.get("flaky-3")?.unlabelledReason).toBe("HTTP 400: context length exceeded");

    // --retry-unlabelled sends exactly the attempt that stayed unlabelled
    const third = await mine("--retry-unlabelled");
    expect(fake.chat.slice(3).map(attemptOf)).toEqual(["flaky-3"]);
    expect(third.get("flaky-3")?.unlabelledReason).toBeUndefined();
    expect(third.get("flaky-3")?.source).toBe("llm");
    expect(third.get("ok-1")).toEqual(first.get("ok-1"));

    // and once labelled, it is cached like the others: nothing more is sent, flag or not
    await mine();
    await mine("--retry-unlabelled");
    expect(fake.chat).toHaveLength(4);
  }, 180_000);
});
