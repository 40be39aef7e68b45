import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serializeAttempt } from "../../src/core/ingest/fire-jsonl.js";
import { fireIn } from "../helpers/cli.js";
import { type ChatBody, type FakeOpenAI, startFakeOpenAI } from "../helpers/fake-openai.js";
import { answerCitingFirstShown, makeAttempt } from "./attempts.js";

/** Which attempt a labelling request is about (the prompt's header names it). */
const attemptOf = (body: ChatBody): string =>
  String(body.messages[1]?.content ?? "").match(/^Attempt (\S+) /)?.[1] ?? "?";

/** A loopback port nothing listens on: connections to it are refused. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

interface Mined {
  labelled: number;
  failed: number;
  reused: number;
  labels: { attemptId: string; unlabelledReason?: string }[];
}

describe("fire mine --labeler llm reports what it could not label (loopback servers)", () => {
  let fake: FakeOpenAI;
  let ws: string;
  let mode: "refuse-none" | "500" | "hang" | "some" = "500";
  const ids = ["a-1", "a-2", "a-3"];

  const writeConfig = (llm: Record<string, unknown>) =>
    writeFile(
      join(ws, "fire.config.json"),
      JSON.stringify({
        sources: ["traces/"],
        llm: { model: "fake-model", maxRetries: 0, ...llm },
      }),
    );
  const mine = (baseURL: string, ...extra: string[]) =>
    fireIn(["mine", "--labeler", "llm", ...extra], {
      cwd: ws,
      env: { OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: "sk-honest-test-0123456789abcdefghij" },
    });

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    fake.respond = (body) => {
      if (mode === "500")
        return { kind: "status", status: 500, body: { error: { message: "upstream exploded" } } };
      if (mode === "hang") return { kind: "hang" };
      if (mode === "some" && attemptOf(body) === "a-2")
        return { kind: "status", status: 400, body: { error: { message: "context too long" } } };
      return answerCitingFirstShown(body);
    };
    ws = await mkdtemp(join(tmpdir(), "fire-honest-"));
    await mkdir(join(ws, "traces"));
    await writeFile(
      join(ws, "traces", "attempts.jsonl"),
      `${ids.map((id) => serializeAttempt(makeAttempt(id))).join("\n")}\n`,
    );
  });
  afterAll(async () => {
    await fake.close();
    await rm(ws, { recursive: true, force: true });
  });

  it("no server listening: exit 1, 0 labelled / 3 failed, the endpoint and first error named", async () => {
    await writeConfig({});
    const port = await closedPort();
    const r = await mine(`http://127.0.0.1:${port}/v1`);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toContain("3 label(s) (0 labelled, 3 failed, 0 reused)");
    expect(r.stderr).toContain("nothing could be labelled: all 3 labelling request(s) failed");
    expect(r.stderr).toContain(`(endpoint http://127.0.0.1:${port}/v1)`);
    expect(r.stderr).toContain("first error: connection failed (ECONNREFUSED)");
    expect(r.stderr).toContain("--retry-unlabelled");
    expect(r.stderr).not.toContain("sk-honest-test");

    // a cached re-run asks nothing and still fails: every label it reuses is unlabelled
    const again = await mine(`http://127.0.0.1:${port}/v1`, "--json");
    expect(again.status).toBe(1);
    const out = JSON.parse(again.stdout) as Mined;
    expect([out.labelled, out.failed, out.reused]).toEqual([0, 0, 3]);
    expect(again.stderr).toContain("all 3 reused label(s) are unlabelled from an earlier run");
  }, 120_000);

  it("a server answering 500: exit 1 with the HTTP error, JSON counts say 3 failed", async () => {
    mode = "500";
    await writeConfig({});
    const r = await mine(fake.baseURL, "--json", "--retry-unlabelled");
    expect(r.status, r.stderr).toBe(1);
    const out = JSON.parse(r.stdout) as Mined;
    expect([out.labelled, out.failed, out.reused]).toEqual([0, 3, 0]);
    expect(out.labels.every((l) => l.unlabelledReason === "HTTP 500: upstream exploded")).toBe(
      true,
    );
    expect(r.stderr).toContain(`endpoint ${fake.baseURL}`);
    expect(r.stderr).toContain("first error: HTTP 500: upstream exploded");
  }, 120_000);

  it("a server that never answers: exit 1, the deadline named as the first error", async () => {
    mode = "hang";
    await writeConfig({ timeoutMs: 400, requestDeadlineMs: 800 });
    const r = await mine(fake.baseURL, "--retry-unlabelled");
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toContain("(0 labelled, 3 failed, 0 reused)");
    expect(r.stderr).toMatch(/first error: .*(timed out|requestDeadlineMs)/i);
  }, 120_000);

  it("partial failure: exit 0, the failed count and the --retry-unlabelled hint", async () => {
    mode = "some";
    await writeConfig({});
    const r = await mine(fake.baseURL, "--retry-unlabelled");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("3 label(s) (2 labelled, 1 failed, 0 reused)");
    expect(r.stderr).toContain("1 attempt(s) stayed unlabelled");
    expect(r.stderr).toContain("first error: HTTP 400: context too long");
    expect(r.stderr).toContain("fire mine --retry-unlabelled");
  }, 120_000);
});
