import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeDemo } from "../../src/gen/demo.js";
import { type FakeOpenAI, startFakeOpenAI } from "../helpers/fake-openai.js";
import { REPO_ROOT } from "../helpers/paths.js";
import { goodAnswer } from "./attempts.js";

/** The built CLI as a child process, asynchronously (the fake server lives in this process). */
function fire(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const p = spawn(process.execPath, [resolve(REPO_ROOT, "dist/cli/main.js"), ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: "1", ...env },
    });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    p.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    p.on("error", fail);
    p.on("close", (code) => done({ code, stdout, stderr }));
  });
}

describe("fire mine --labeler llm (built CLI) against a local OpenAI-compatible server", () => {
  let fake: FakeOpenAI;
  let ws: string;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    // cite the first event the prompt shows, so every answer is valid for its attempt
    fake.respond = (body) => {
      const user = body.messages.find((m: { role: string }) => m.role === "user").content as string;
      const shown = Number(user.match(/^\[(\d+)\] /m)?.[1] ?? 0);
      return {
        kind: "json",
        answer: goodAnswer({
          capabilityEvidence: [{ eventIndex: shown, why: "shown" }],
          preFailureState: { eventIndex: shown, description: "before stop" },
        }),
      };
    };
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
    const first = await fire(["mine", "--labeler", "llm", "--json"], ws, env);
    expect(first.stderr).not.toContain("sk-cli-test");
    expect(first.code).toBe(0);
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

    const second = await fire(["mine", "--labeler", "llm", "--json"], ws, env);
    expect(second.code).toBe(0);
    expect(fake.chat.length).toBe(sent);
    expect(JSON.parse(second.stdout).labels).toEqual(out.labels);
  });
});
