import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ATTEMPTS } from "../helpers/demo.js";
import { type FakeOpenAI, startFakeOpenAI } from "../helpers/fake-openai.js";
import { answerCitingFirstShown } from "../llm/attempts.js";
import { demoCopy, KEY, renderApp, waitFor } from "./helpers.js";

const ws = demoCopy();
let fake: FakeOpenAI;
const saved = { base: process.env.OPENAI_BASE_URL, key: process.env.OPENAI_API_KEY };

beforeAll(async () => {
  fake = await startFakeOpenAI();
  // Three answers, then the server hangs: the run is mid-way when the user cancels.
  fake.respond = (body, n) => {
    if (n > 3) return { kind: "hang" };
    return answerCitingFirstShown(body);
  };
  writeFileSync(
    join(ws.dir, "fire.config.json"),
    JSON.stringify({ sources: ["traces/"], llm: { model: "gpt-4o-mini", concurrency: 1 } }),
  );
  process.env.OPENAI_BASE_URL = fake.baseURL;
  process.env.OPENAI_API_KEY = "sk-ui-test-0123456789abcdefghij";
});
afterAll(async () => {
  if (saved.base === undefined) delete process.env.OPENAI_BASE_URL;
  else process.env.OPENAI_BASE_URL = saved.base;
  if (saved.key === undefined) delete process.env.OPENAI_API_KEY;
  else process.env.OPENAI_API_KEY = saved.key;
  await fake.close();
  ws.cleanup();
});

describe("LLM labelling from the Mechanisms screen", () => {
  it("shows progress with live cost and cache hits, and Esc cancels without a crash", async () => {
    const app = renderApp(ws.dir, { columns: 120, rows: 30 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("3");
    await app.see("Nothing mined yet");
    await app.press("L");
    // answers arrived (the count moved past 0); the exact count depends on when the frame is
    // drawn under load (a hung request may time out and count as done)
    await waitFor(
      () =>
        /labelling \(LLM\)\D*[1-9]\d*\/\d+/.test(app.frame()) &&
        app.frame().includes("cache hits 0") &&
        app.frame().includes("(Esc cancels)"),
      app.frame,
    );
    expect(app.frame()).toMatch(/\$0\.\d{4}/);
    await app.press(KEY.esc);
    await app.see("labelling (LLM): cancelled");
    // The app still answers keys after the cancel.
    await app.press("1");
    await app.see("filters:");
    app.unmount();
  });

  it("a run where every request fails says so in the status line, with the counts", async () => {
    fake.respond = () => ({ kind: "status", status: 500, body: { error: { message: "down" } } });
    writeFileSync(
      join(ws.dir, "fire.config.json"),
      // another model: none of the first test's cached answers match
      JSON.stringify({ sources: ["traces/"], llm: { model: "other-model", maxRetries: 0 } }),
    );
    const app = renderApp(ws.dir, { columns: 160, rows: 30 });
    await app.see(DEMO_ATTEMPTS);
    await app.press("3");
    await app.press("L");
    await app.see("(0 labelled,", "failed, 0 reused): nothing could be labelled");
    expect(app.frame()).not.toMatch(/\(\d+ new,/);
    app.unmount();
  });
});
