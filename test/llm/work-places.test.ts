import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import type { Attempt } from "../../src/core/model/attempt.js";
import { LlmConfig } from "../../src/llm/config.js";
import { workPlacesLine } from "../../src/llm/digest.js";
import { buildLabelPrompt } from "../../src/llm/prompt.js";
import { collect } from "../core/ingest/collect.js";
import { elsewhereTrials } from "../core/mine/elsewhere-trials.js";
import { REPO_ROOT } from "../helpers/paths.js";

async function one(dir: string, name: string): Promise<Attempt> {
  const got = await collect([resolve(REPO_ROOT, "test/fixtures", dir)]);
  const a = got.attempts.find((x) => x.source.path.endsWith(name));
  if (!a) throw new Error(`no ${name} in ${dir}`);
  return a;
}

describe("where the graded work and the agent's work lay (real trials)", () => {
  it("an agent that searched its own folder: the graded folder is never named by a call", async () => {
    const a = (await elsewhereTrials()).get("kubernetes__release_9d42037a_572__75m9VRQ");
    if (!a) throw new Error("fixture missing");
    const line = workPlacesLine(a);
    expect(line).toMatch(/^folders: the verifier's output names \/app; /);
    expect(line).toContain("/workspace (");
    expect(line).toMatch(/never named by a call: \/app$/);
    // the prompt shows it in the run-end section
    const user = buildLabelPrompt(a, [], LlmConfig.parse({})).messages[1]?.content ?? "";
    expect(user).toContain(line);
  });

  it("an agent that worked where it was graded: both sides name the same folder", async () => {
    const line = workPlacesLine(await one("harbor-terminus2", "polyglot-c-py__J3vZSQA"));
    expect(line).toMatch(
      /^folders: the verifier's output names \/app; the agent's calls named \/app \(\d+\)/,
    );
    expect(line).not.toContain("never named");
  });

  it("a verifier whose output names no work folder gives no line", async () => {
    expect(workPlacesLine(await one("tb1", "hello-world.2-of-2.2025-06-14__09-30-00"))).toBe("");
  });
});
