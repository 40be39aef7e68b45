import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mine, openSession } from "../../src/core/app/index.js";
import { loadTemplates } from "../../src/core/draft/templates.js";
import { fireIn } from "../helpers/cli.js";
import { type FakeOpenAI, startFakeOpenAI } from "../helpers/fake-openai.js";
import { REPO_ROOT } from "../helpers/paths.js";

describe("fire draft --llm against a local OpenAI-compatible server", () => {
  let fake: FakeOpenAI;
  let ws: string;
  let clusters: { id: string; family: string }[];
  const env = () => ({
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_API_KEY: "sk-draft-test-0123456789abcdef",
  });
  const templates = loadTemplates().byFamily;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    ws = await mkdtemp(join(tmpdir(), "fire-cli-draft-"));
    await cp(join(REPO_ROOT, "traces", "generated"), join(ws, "traces", "generated"), {
      recursive: true,
    });
    await writeFile(
      join(ws, "fire.config.json"),
      JSON.stringify({ sources: ["traces/"], llm: { model: "fake-model" } }),
    );
    // mining is not under test here: the use case `fire mine` calls, in-process
    const mined = await mine(await openSession(ws), { labeler: "heuristic" });
    clusters = mined.clusters.map((c) => ({ id: c.id, family: c.family ?? "" }));
  }, 120_000);
  afterAll(async () => {
    await fake.close();
    await rm(ws, { recursive: true, force: true });
  });

  it("saves a schema-valid, safety-checked LLM draft with lineage; the prompt carries the mechanism", async () => {
    const c = clusters.find((x) => x.family === "binary-equivalence")!;
    const answer = { ...templates.get("binary-equivalence")!, id: "draft", status: "frozen" };
    fake.respond = () => ({ kind: "json", answer });
    const before = fake.chat.length;
    const r = await fireIn(["draft", "--cluster", c.id, "--llm", "--json"], {
      cwd: ws,
      env: env(),
    });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(fake.chat.length).toBe(before + 1);
    const sent = JSON.stringify(fake.chat.at(-1).messages);
    expect(sent).toContain("Family: binary-equivalence");
    expect(sent).not.toContain("sk-draft-test");
    const out = JSON.parse(r.stdout);
    expect(out.drafter).toBe("llm");
    expect(out.candidate.status).toBe("draft"); // never frozen automatically
    expect(out.candidate.lineage.clusters).toEqual([c.id]);
    expect(out.file).toBe(join(ws, "candidates", "drafts", `${out.candidate.id}.yaml`));
    expect(await readFile(out.file, "utf8")).toContain(`id: ${out.candidate.id}`);
  });

  it("warns when a saved draft routes nothing and would never fire on its lineage", async () => {
    const c = clusters.find((x) => x.family === "dataset-token-accounting")!;
    const t = templates.get("dataset-token-accounting")!;
    fake.respond = () => ({
      kind: "json",
      answer: {
        ...t,
        id: "draft",
        eligibility: { allOf: [], anyOf: ["qqq-no-task-says-this"], noneOf: [] },
      },
    });
    const r = await fireIn(["draft", "--cluster", c.id, "--llm"], { cwd: ws, env: env() });
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/fire: warning: draft-\S+ routes no task of the workspace/);
    expect(r.stderr).toMatch(/fires on none of its \d+ lineage attempt\(s\) in replay/);
    expect(r.stdout).toContain("routes 0/");
  });

  it("reports a draft that stays invalid after the repair round and saves nothing", async () => {
    const c = clusters.find((x) => x.family === "latex-final-log")!;
    const t = templates.get("latex-final-log")!;
    const c2 = clusters.find((x) => x.family === "service-persistence")!;
    fake.respond = () => ({
      kind: "json",
      answer: { ...t, id: "draft", eligibility: { allOf: [], anyOf: ["rm(?=\\s)"], noneOf: [] } },
    });
    const before = fake.chat.length;
    const r = await fireIn(["draft", "--cluster", c.id, "--llm"], { cwd: ws, env: env() });
    expect(r.status).toBe(1);
    expect(fake.chat.length).toBe(before + 2); // the answer and one repair
    expect(JSON.stringify(fake.chat.at(-1).messages)).toContain("cannot run in linear time");
    expect(r.stderr).toContain(
      `the llm drafter produced no valid candidate for ${c.id} (nothing saved)`,
    );
    expect(r.stderr).toMatch(/eligibility\.anyOf\.0: .*linear time/);
    // an answer naming a task of the cluster is refused the same way
    fake.respond = () => ({
      kind: "json",
      answer: {
        ...templates.get("service-persistence")!,
        id: "draft",
        title: "Keep flask-kv-store-api running",
      },
    });
    const r2 = await fireIn(["draft", "--cluster", c2.id, "--llm"], { cwd: ws, env: env() });
    expect(r2.status).toBe(1);
    expect(r2.stderr).toContain("rule text names the task flask-kv-store-api");
    const drafts = await readdir(join(ws, "candidates", "drafts"));
    expect(drafts.some((f) => f.includes("latex") || f.includes("service"))).toBe(false);
  });

  it("drafts from the template without --llm and refuses to overwrite an existing draft", async () => {
    const c = clusters.find((x) => x.family === "exact-replacement")!;
    const first = await fireIn(["draft", "--cluster", c.id], { cwd: ws, env: {} });
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(
      /^drafted draft-exact-replacement-[0-9a-f]{6}@1 \(exact-replacement, template\)/,
    );
    // where it routes and whether it fires on its own attempts, computed by core checkDraft
    expect(first.stdout).toMatch(
      /routes [1-9]\d*\/\d+ lineage task\(s\) and \d+ other\(s\); fires on [1-9]\d*\/\d+ lineage attempt\(s\) in replay/,
    );
    const again = await fireIn(["draft", "--cluster", c.id], { cwd: ws, env: {} });
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/already exists: revise it/);
    const none = await fireIn(["draft", "--cluster", "c-zzzz"], { cwd: ws, env: {} });
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/no cluster matches c-zzzz/);
  });
});
