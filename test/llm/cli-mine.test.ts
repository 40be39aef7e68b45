import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeDemo } from "../../src/gen/demo.js";
import { fireIn } from "../helpers/cli.js";
import { type FakeOpenAI, startFakeOpenAI } from "../helpers/fake-openai.js";
import { answerCitingFirstShown } from "./attempts.js";

describe("fire mine --labeler llm against a local OpenAI-compatible server", () => {
  let fake: FakeOpenAI;
  let ws: string;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    // cite the first event the prompt shows, so every answer is valid for its attempt
    fake.respond = answerCitingFirstShown;
    ws = await mkdtemp(join(tmpdir(), "fire-cli-llm-"));
    await writeDemo({ outDir: join(ws, "traces"), seed: 7 });
    await writeFile(
      join(ws, "fire.config.json"),
      JSON.stringify({ sources: ["traces/"], llm: { model: "fake-model" } }),
    );
  });
  afterAll(async () => {
    await fake.close();
    await rm(ws, { recursive: true, force: true });
  });

  it("labels through the server, then re-runs from the cache without a request", async () => {
    const env = {
      OPENAI_BASE_URL: fake.baseURL,
      OPENAI_API_KEY: "sk-cli-test-0123456789abcdefghij",
    };
    const first = await fireIn(["mine", "--labeler", "llm", "--json"], { cwd: ws, env: env });
    expect(first.stderr).not.toContain("sk-cli-test");
    expect(first.status).toBe(0);
    const out = JSON.parse(first.stdout);
    const sent = fake.chat.length;
    expect(sent).toBeGreaterThan(5);
    expect(out.labels.length).toBe(sent);
    expect(
      out.labels.every(
        (l: { source: string; model: string }) => l.source === "llm" && l.model === "fake-model",
      ),
    ).toBe(true);
    expect(out.labels.filter((l: { unlabelledReason?: string }) => l.unlabelledReason)).toEqual([]);

    const second = await fireIn(["mine", "--labeler", "llm", "--json"], { cwd: ws, env: env });
    expect(second.status).toBe(0);
    expect(fake.chat.length).toBe(sent);
    expect(JSON.parse(second.stdout).labels).toEqual(out.labels);
  });
});
