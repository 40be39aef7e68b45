import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeDemo } from "../../src/gen/demo.js";
import { fireIn } from "../helpers/cli.js";
import { type FakeOpenAI, startFakeOpenAI } from "../helpers/fake-openai.js";
import { answerCitingFirstShown } from "./attempts.js";

/**
 * `fire mine --labeler llm --batch` (the CLI in-process, real openai client) against the loopback
 * server when the batch fails: the user sees the server's batch errors, nothing is labelled.
 */
describe("fire mine --batch: a failed batch shows its errors", () => {
  let fake: FakeOpenAI;
  const dirs: string[] = [];
  const workspace = async () => {
    const ws = await mkdtemp(join(tmpdir(), "fire-cli-batch-"));
    dirs.push(ws);
    await writeDemo({ outDir: join(ws, "traces"), seed: 7 });
    await writeFile(
      join(ws, "fire.config.json"),
      JSON.stringify({ sources: ["traces/"], llm: { model: "fake-model", batchPollMs: 10 } }),
    );
    return ws;
  };
  const env = () => ({
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_API_KEY: "sk-cli-batch-0123456789abcdefghij",
  });
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    fake.respond = answerCitingFirstShown;
    fake.batchErrors = [
      { code: "invalid_request", message: "model fake-model is not batchable", line: 1 },
      { code: "token_limit_exceeded", message: "enqueued token limit reached" },
    ];
  });
  afterAll(async () => {
    await fake.close();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it("prints the batch's errors in the run report", async () => {
    const text = await fireIn(["mine", "--labeler", "llm", "--batch"], {
      cwd: await workspace(),
      env: env(),
    });
    // nothing could be labelled: the run fails, naming the endpoint and the first error
    expect(text.status).toBe(1);
    expect(text.stderr).toMatch(
      /nothing could be labelled: all \d+ labelling request\(s\) failed \(endpoint http:\/\/127\.0\.0\.1:\d+\/v1\); first error: batch /,
    );
    expect(text.stdout).toMatch(
      /\nbatch batch_\S+ failed: invalid_request \(line 1\): model fake-model is not batchable; token_limit_exceeded: enqueued token limit reached\n/,
    );
    expect(text.stdout).toMatch(/; 0 labelled, [1-9]\d* unlabelled/);
    expect(fake.chat).toHaveLength(0);
  });

  it("--json carries the batch's status and errors", async () => {
    const json = await fireIn(["mine", "--labeler", "llm", "--batch", "--json"], {
      cwd: await workspace(),
      env: env(),
    });
    expect(json.status).toBe(1);
    const out = JSON.parse(json.stdout) as {
      report: { batch: { status: string; errors: string[] }; costUsd: number };
      labels: { unlabelledReason?: string }[];
    };
    expect(out.report.batch.status).toBe("failed");
    expect(out.report.batch.errors).toEqual([
      "invalid_request (line 1): model fake-model is not batchable",
      "token_limit_exceeded: enqueued token limit reached",
    ]);
    expect(out.report.costUsd).toBe(0);
    expect(out.labels.length).toBeGreaterThan(0);
    for (const l of out.labels) expect(l.unlabelledReason).toMatch(/batch .* failed/);
  });
});
