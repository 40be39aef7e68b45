import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeDemo } from "../../src/gen/demo.js";
import { fireIn, spawnAsync } from "../helpers/cli.js";
import { type ChatBody, type FakeOpenAI, startFakeOpenAI } from "../helpers/fake-openai.js";
import { REPO_ROOT } from "../helpers/paths.js";

const MAIN = resolve(REPO_ROOT, "dist/cli/main.js");
const KEY = "sk-suggest-test-0123456789abcdefghij";

/** The CLI in-process; the suggested command line is run through sh with the built CLI. */
const fire = (args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) =>
  fireIn(args, { cwd, env });
const run = spawnAsync;

function shownIds(body: ChatBody): string[] {
  const user = body.messages.find((m: { role: string }) => m.role === "user").content as string;
  return [...user.matchAll(/^### (c-[0-9a-f]{10})$/gm)].map((m) => m[1] as string);
}

describe("fire clusters --suggest against a local OpenAI-compatible server", () => {
  let fake: FakeOpenAI;
  let ws: string;
  let env: NodeJS.ProcessEnv;
  const decisions = (): string => join(ws, "mining", "decisions.json");
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    fake.respond = (body) => {
      const [a, b, c] = shownIds(body);
      return {
        kind: "json",
        answer: {
          names: [{ clusterId: a, name: "Agent's stop before checking", why: "all stop early" }],
          merges: [{ clusterIds: [b, c], why: "one stop rule covers both" }],
        },
      };
    };
    env = { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: KEY };
    ws = await mkdtemp(join(tmpdir(), "fire-cli-suggest-"));
    await writeDemo({ outDir: join(ws, "traces"), seed: 7 });
    await writeFile(
      join(ws, "fire.config.json"),
      JSON.stringify({ sources: ["traces/"], llm: { model: "fake-model", maxRetries: 0 } }),
    );
    const mined = await fire(["mine", "--labeler", "heuristic"], ws);
    expect(mined.status).toBe(0);
  });
  afterAll(async () => {
    await fake.close();
    await rm(ws, { recursive: true, force: true });
  });

  it("prints suggestions as fire cluster commands, records nothing, and a re-run sends nothing", async () => {
    // an earlier user decision: the suggestion run must leave it exactly as it is
    const before = JSON.parse((await fire(["clusters", "--json"], ws)).stdout);
    const last = before.clusters.at(-1);
    const renamed = await fire(["cluster", "rename", last.id, "Kept by the user"], ws);
    expect(renamed.status).toBe(0);
    const bytes = await readFile(decisions(), "utf8");
    const mtime = (await stat(decisions())).mtimeMs;

    const out = await fire(["clusters", "--suggest", "--json"], ws, env);
    expect(out.stderr).toBe("");
    expect(out.status).toBe(0);
    const json = JSON.parse(out.stdout);
    const ids: string[] = json.clusters.map((c: { id: string }) => c.id);
    expect(ids.length).toBeGreaterThanOrEqual(3);
    expect(json).toMatchObject({ ok: true, applied: false, cached: false });
    expect(json.changes.map((c: { command: string }) => c.command)).toEqual([
      `fire cluster rename ${ids[0]} 'Agent'\\''s stop before checking'`,
      `fire cluster merge ${ids[1]} ${ids[2]}`,
    ]);
    expect(fake.chat).toHaveLength(1);
    expect(fake.allReceived()).toContain("Kept by the user (named by the user)");
    expect(out.stdout).not.toContain(KEY);
    expect(await readFile(decisions(), "utf8")).toBe(bytes);
    expect((await stat(decisions())).mtimeMs).toBe(mtime);

    const text = await fire(["clusters", "--suggest"], ws, env);
    expect(text.status).toBe(0);
    expect(fake.chat).toHaveLength(1);
    expect(text.stdout).toContain("Nothing was applied");
    expect(text.stdout).toContain(`  fire cluster merge ${ids[1]} ${ids[2]}`);
    expect(text.stdout).toContain("0 request(s)");
    expect(text.stdout).toContain("answer from the cache");
    expect(await readFile(decisions(), "utf8")).toBe(bytes);

    // the printed command is exact: run through a shell, it records the rename
    const command = json.changes[0].command.replace(/^fire /, `"${process.execPath}" "${MAIN}" `);
    const applied = await run("sh", ["-c", command], ws, {});
    expect(applied.code).toBe(0);
    const after = JSON.parse((await fire(["clusters", "--json"], ws)).stdout);
    expect(after.clusters.find((c: { id: string }) => c.id === ids[0]).name).toBe(
      "Agent's stop before checking",
    );
  });

  it("without a key or base URL it fails clearly and writes nothing", async () => {
    const bytes = await readFile(decisions(), "utf8");
    const out = await fire(["clusters", "--suggest"], ws, {
      OPENAI_API_KEY: "",
      OPENAI_BASE_URL: "",
    });
    expect(out.status).toBe(1);
    expect(out.stderr).toContain("no OPENAI_API_KEY and no OPENAI_BASE_URL");
    expect(out.stdout).toBe("");
    expect(await readFile(decisions(), "utf8")).toBe(bytes);
  });
});
